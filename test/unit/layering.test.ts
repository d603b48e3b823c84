// The layering rules are lint rules; this proves each catches what it must.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { ESLint } from 'eslint';
import { ROOT } from '../helpers/paths.ts';

const eslint = new ESLint({ cwd: ROOT });
const lint = async (code: string, filePath: string) => {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => m.ruleId);
};
const refused = async (code: string, filePath: string) => (await lint(code, filePath)).includes('no-restricted-imports');

test('main/core and main/cli may not import electron or the Electron adapter', { timeout: 30_000 }, async () => {
  assert.ok(await refused("import { app } from 'electron';\nexport const a = app;\n", 'main/core/x.ts'));
  assert.ok((await lint("const e = require('electron');\nexport { e };\n", 'main/core/y.ts')).length > 0);
  assert.ok(await refused("import { app } from 'electron';\nexport const a = app;\n", 'main/cli/x.ts'));
  assert.ok(await refused("import { x } from '../electron/window.ts';\nexport const a = x;\n", 'main/core/z.ts'));
  assert.ok(await refused("import { x } from '../../electron/window.ts';\nexport const a = x;\n", 'main/core/runtime/z.ts'));
});

test('main/core may not import the CLI or the renderer', { timeout: 30_000 }, async () => {
  assert.ok(await refused("import { x } from '../../cli/main.ts';\nexport const a = x;\n", 'main/core/runtime/z.ts'));
  assert.ok(await refused("import { x } from '../../../renderer/src/app.tsx';\nexport const a = x;\n", 'main/core/runtime/z.ts'));
});

test('the renderer may import only the contract (no main/, no Node, no electron)', { timeout: 30_000 }, async () => {
  assert.ok(await refused("import { x } from '../../main/core/util/errors.ts';\nexport const a = x;\n", 'renderer/src/x.ts'));
  assert.ok(await refused("import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n", 'renderer/src/x.ts'));
  assert.ok(await refused("import { ipcRenderer } from 'electron';\nexport const a = ipcRenderer;\n", 'renderer/src/x.ts'));
  assert.ok(await refused("import { x } from '../../preload/index.ts';\nexport const a = x;\n", 'renderer/src/x.ts'));
  assert.equal(await refused("import { controlContract } from '../../contract/control.ts';\nexport const a = controlContract;\n", 'renderer/src/x.ts'), false);
});

test('the contract imports zod and its own files only', { timeout: 30_000 }, async () => {
  assert.ok(await refused("import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n", 'contract/x.ts'));
  assert.ok(await refused("import { AirlockError } from '../main/core/util/errors.ts';\nexport const a = AirlockError;\n", 'contract/x.ts'));
  assert.equal(
    await refused("import { z } from 'zod';\nimport { logEntrySchema } from './logs.ts';\nexport const a = [z, logEntrySchema];\n", 'contract/x.ts'),
    false,
  );
});

test('the Electron adapter may import electron', { timeout: 30_000 }, async () => {
  assert.deepEqual(await lint("import { app } from 'electron';\nexport const a = app;\n", 'main/electron/x.ts'), []);
});

test('main/core may not write to the console (stdout is the protocol in stdio mode)', { timeout: 30_000 }, async () => {
  assert.ok((await lint("console.log('hi');\n", 'main/core/x.ts')).includes('no-console'));
});

/** Relative imports of every .ts file under the given folders (type-only imports included). */
function importGraph(folders: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name)) {
        const text = readFileSync(path, 'utf8');
        const targets = [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/gm)].map((m) =>
          relative(ROOT, resolve(dirname(path), m[1]!)),
        );
        graph.set(relative(ROOT, path), targets);
      }
    }
  };
  for (const f of folders) walk(join(ROOT, f));
  return graph;
}

test('no import cycles in main/ and contract/', { timeout: 30_000 }, () => {
  const graph = importGraph(['main', 'contract']);
  const cycles: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'visiting') {
      cycles.push([...stack.slice(stack.indexOf(node)), node].join(' → '));
      return;
    }
    state.set(node, 'visiting');
    stack.push(node);
    for (const next of graph.get(node) ?? []) if (graph.has(next)) visit(next);
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) visit(node);
  assert.deepEqual(cycles, []);
});
