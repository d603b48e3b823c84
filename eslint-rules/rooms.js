// A lint rule that keeps the rooms of main/core in order (as VS Code's layer
// rules do): a file may import its own room and any room on a lower level,
// never a room on its level (across) or above it (up). Type-only imports
// count: they tie the rooms together as much as values do.
// The order itself is passed in eslint.config.js; test/unit/rooms.test.ts
// proves the rule fires and that the tree obeys it.
import { dirname, relative, resolve, sep } from 'node:path';

/** The room of an absolute path under `base` (its first folder), or undefined outside it or for a file at its top. */
function roomOf(base, file) {
  const rel = relative(base, file);
  if (rel.startsWith('..') || rel === '') return undefined;
  const parts = rel.split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'main/core rooms import only their own room and lower levels' },
    schema: [
      {
        type: 'object',
        properties: {
          base: { type: 'string' },
          levels: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
        },
        required: ['base', 'levels'],
        additionalProperties: false,
      },
    ],
    messages: {
      up: '{{from}} (level {{fromLevel}}) may not import {{to}} (level {{toLevel}}): rooms import only lower levels. The order: {{order}}.',
      across:
        '{{from}} may not import {{to}}: they are on the same level ({{fromLevel}}), and rooms on one level do not know each other. The order: {{order}}.',
      unknown: '{{room}} is not a room of main/core: add it to the room order in eslint.config.js (the level says what it may import).',
    },
  },
  create(context) {
    const { base: baseOption, levels } = context.options[0];
    const base = resolve(context.cwd ?? process.cwd(), baseOption);
    const levelOf = new Map(levels.flatMap((rooms, i) => rooms.map((room) => [room, i + 1])));
    const order = levels.map((rooms) => rooms.join(' · ')).join(' → ');
    const file = resolve(context.cwd ?? process.cwd(), context.filename ?? context.getFilename());
    const from = roomOf(base, file);
    if (from === undefined) return {};

    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = roomOf(base, resolve(dirname(file), source));
      if (to === undefined || to === from) return;
      const fromLevel = levelOf.get(from);
      const toLevel = levelOf.get(to);
      if (fromLevel === undefined) return context.report({ node, messageId: 'unknown', data: { room: from } });
      if (toLevel === undefined) return context.report({ node, messageId: 'unknown', data: { room: to } });
      if (toLevel > fromLevel) context.report({ node, messageId: 'up', data: { from, to, fromLevel, toLevel, order } });
      else if (toLevel === fromLevel) context.report({ node, messageId: 'across', data: { from, to, fromLevel, order } });
    };
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
      TSImportType: (node) => {
        const arg = node.argument?.literal ?? node.argument;
        if (arg && arg.type === 'Literal') check(node, arg.value);
      },
    };
  },
};
