// Tool definitions, pinned (issue 20). The first time a server's tools are
// seen, nothing of it runs until a person has read them and accepted them;
// what was accepted is kept in `<data dir>/server-reviews.json`. A server
// whose tools later differ — a description or a schema changed, a tool added
// or gone — waits in review again, with what changed shown as a diff: a
// server that turns hostile after it was trusted (a "rug pull" that rewrites
// a description into instructions) is held, not obeyed.
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { createTwoFilesPatch } from 'diff';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomicWrite.ts';
import { FileCache } from '../util/fileCache.ts';
import { readJsonFile } from '../util/jsonFile.ts';
import { SERVER_NAME } from './serverEntry.ts';

/** What of a tool is pinned: everything a model reads or a call depends on. */
export interface PinnedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

export type ReviewState = 'unreviewed' | 'accepted' | 'changed';

export interface ToolChange {
  tool: string;
  change: 'added' | 'removed' | 'changed';
  /** The definition as accepted (absent: added) and as it is now (absent: removed), as pretty JSON. */
  before?: string;
  after?: string;
}

export interface Review {
  state: ReviewState;
  /** What differs from what was accepted (every tool, as added, when nothing was). */
  changes: ToolChange[];
}

/** The longest definition shown as a diff; a longer one is shown as its size (a diff of two huge texts costs too much). */
export const DIFF_MAX_CHARS = 64 * 1024;

/** A change as a unified diff, accepted → now: bounded in size and in the work it takes. */
export function changeDiff(change: ToolChange): string {
  const a = change.before ?? '';
  const b = change.after ?? '';
  if (a.length > DIFF_MAX_CHARS || b.length > DIFF_MAX_CHARS) {
    return `${change.tool}: ${change.change}; its definition is too large to show as a diff (${Math.ceil(a.length / 1024)} KB → ${Math.ceil(b.length / 1024)} KB): read it with airlock servers show --json\n`;
  }
  return (
    createTwoFilesPatch(`${change.tool} (accepted)`, `${change.tool} (now)`, a, b, undefined, undefined, { context: 3, maxEditLength: 5000 }) ??
    `${change.tool}: ${change.change}; too different to show as a diff\n`
  );
}

export function pinOf(tool: Tool): PinnedTool {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  };
}

/** JSON with its keys sorted at every level: the same definition always reads (and compares) the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** A tool's definition as a person reads it, and as it is compared. */
export function definitionText(pin: PinnedTool): string {
  return JSON.stringify(canonical(pin), null, 2) + '\n';
}

/** One digest of a whole list of tool definitions: what a person was shown, so a yes accepts only that. */
export function toolsDigest(tools: readonly Tool[]): string {
  const hash = createHash('sha256');
  for (const pin of tools.map(pinOf).sort((a, b) => a.name.localeCompare(b.name))) hash.update(definitionText(pin)).update('\0');
  return `sha256:${hash.digest('hex')}`;
}

/** How a server's tools compare with what a person accepted: by their texts (linear in their size; no diff is made here). */
export function reviewOf(accepted: readonly PinnedTool[] | undefined, current: readonly Tool[]): Review {
  const now = new Map(current.map((t) => [t.name, definitionText(pinOf(t))]));
  const before = new Map((accepted ?? []).map((p) => [p.name, definitionText(p)]));
  const changes: ToolChange[] = [];
  for (const [name, after] of now) {
    const was = before.get(name);
    if (was === undefined) changes.push({ tool: name, change: 'added', after });
    else if (was !== after) changes.push({ tool: name, change: 'changed', before: was, after });
  }
  for (const [name, was] of before) if (!now.has(name)) changes.push({ tool: name, change: 'removed', before: was });
  // Two definitions under one name (a list that slipped past the client's check) never pass as accepted.
  if (now.size !== current.length) changes.push({ tool: '(several tools share a name)', change: 'changed' });
  changes.sort((a, b) => a.tool.localeCompare(b.tool));
  if (!accepted) return { state: 'unreviewed', changes };
  return { state: changes.length === 0 ? 'accepted' : 'changed', changes };
}

const pinSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.unknown(),
  outputSchema: z.unknown().optional(),
  annotations: z.unknown().optional(),
});

const fileSchema = z.object({
  version: z.literal(1),
  servers: z.record(z.string().regex(SERVER_NAME), z.object({ acceptedAt: z.string(), tools: z.array(pinSchema) })),
});

export interface Accepted {
  acceptedAt: string;
  tools: PinnedTool[];
}

/** What a person accepted, per server, in `server-reviews.json` (written whole, atomically). */
export class PinStore {
  private readonly file: string;
  private readonly cache: FileCache<Record<string, Accepted>>;

  constructor(file: string) {
    this.file = file;
    this.cache = new FileCache(file, () => this.parseFile());
  }

  get(server: string): Accepted | undefined {
    const all = this.read();
    return Object.hasOwn(all, server) ? all[server] : undefined;
  }

  /** Accepts these definitions for a server: calls to it may run (under their policies) while its tools stay the same. */
  async accept(server: string, tools: readonly Tool[], at = new Date()): Promise<Accepted> {
    const all = this.read();
    const accepted = { acceptedAt: at.toISOString(), tools: tools.map(pinOf) };
    all[server] = accepted;
    await this.write(all);
    return accepted;
  }

  /** Forgets a server's review (it is removed): added again, it waits for review again. */
  async forget(server: string): Promise<void> {
    const all = this.read();
    if (!Object.hasOwn(all, server)) return;
    delete all[server];
    await this.write(all);
  }

  /** A copy of the file's record (parsed again only when the file changed), for the caller to change and write. */
  private read(): Record<string, Accepted> {
    return { ...this.cache.get() };
  }

  private parseFile(): Record<string, Accepted> {
    return {
      ...(readJsonFile(this.file, fileSchema, 'move it aside: every server then waits for review again')?.servers as Record<string, Accepted> | undefined),
    };
  }

  private async write(all: Record<string, Accepted>): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify({ version: 1, servers: all }, null, 2) + '\n', { mode: 0o600 });
  }
}
