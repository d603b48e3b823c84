// An API's outline: its groups — the document's tags, or the first segment
// of the path where an operation has none — each with its operation count
// and one line saying what is in it. A model that cannot guess a large API's
// words browses it: the outline first, then one group's operations.
import type { ApiOperation, Catalogue } from '../openapi/catalogue.ts';
import { plainText } from './plainText.ts';

export interface OutlineGroup {
  name: string;
  operations: ApiOperation[];
  /** The tag's description, else what its first operations do. */
  line: string;
}

/** The group an operation is listed under. */
export function groupOf(op: ApiOperation): string {
  if (op.tags[0]) return op.tags[0];
  const segment = op.path.split('/').find((s) => s.length > 0 && !s.startsWith('{'));
  return segment ?? '(root)';
}

function oneLine(text: string, max: number): string {
  const flat = plainText(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).replace(/\s+\S*$/, '')}…` : flat;
}

/** The groups in document order of first appearance. `tagText` gives a tag's description, when the document has one. */
export function outlineOf(catalogue: Catalogue, tagText: (tag: string) => string | undefined = () => undefined): OutlineGroup[] {
  const groups = new Map<string, ApiOperation[]>();
  for (const op of catalogue.operations) {
    const name = groupOf(op);
    const list = groups.get(name);
    if (list) list.push(op);
    else groups.set(name, [op]);
  }
  return [...groups].map(([name, operations]) => {
    const described = tagText(name);
    const line = described
      ? oneLine(described, 120)
      : oneLine(
          operations
            .slice(0, 3)
            .map((op) => op.summary ?? `${op.method} ${op.path}`)
            .join('; '),
          120,
        );
    return { name, operations, line };
  });
}

/** The outline as search_docs answers it: one line per group, and how to open one. */
export function renderOutline(title: string, groups: OutlineGroup[], budget = 7800): string {
  const head = `${title}: ${groups.reduce((n, g) => n + g.operations.length, 0)} operations in ${groups.length} groups. Give \`group\` (with \`api\`) to list one group's operations, or a query to search.\n`;
  const lines: string[] = [head];
  let used = Buffer.byteLength(head);
  for (const g of groups) {
    const line = `- ${g.name} (${g.operations.length}): ${g.line}`;
    if (used + Buffer.byteLength(line) + 1 > budget) {
      lines.push(`… and ${groups.length - lines.length + 1} more groups`);
      break;
    }
    lines.push(line);
    used += Buffer.byteLength(line) + 1;
  }
  return lines.join('\n') + '\n';
}

/** One group's operations, one line each, with the exact call. */
export function renderGroup(title: string, client: string, group: OutlineGroup, budget = 7800): string {
  const head = `${group.operations.length} operations of ${title} in ${group.name}. Search for one by name for its parameters and an example.\n`;
  const lines: string[] = [head];
  let used = Buffer.byteLength(head);
  for (const op of group.operations) {
    const line = `- ${[client, ...op.callPath].join('.')} — ${op.method} ${op.path}${op.summary ? ` — ${oneLine(op.summary, 90)}` : ''}`;
    if (used + Buffer.byteLength(line) + 1 > budget) {
      lines.push('… (more: search within the group by name)');
      break;
    }
    lines.push(line);
    used += Buffer.byteLength(line) + 1;
  }
  return lines.join('\n') + '\n';
}
