// The names an MCP server's tools get when a person lets a client see them
// directly (issue 20): `<server>__<tool>`, matching ^[A-Za-z0-9_-]{1,64}$
// and no longer than DIRECT_NAME_MAX, since Claude Code prefixes
// `mcp__airlock__` (64 − 14 = 50). A character a name may not hold becomes
// `_`; a name too long keeps its beginning and ends with a hash of the whole,
// so it is shortened the same way every time. Two tools that would get the
// same name are refused, saying which: never a silent `_2`.
import { createHash } from 'node:crypto';

/** The longest name a direct tool gets (Claude Code's `mcp__airlock__` prefix included, the 64 of the MCP rule). */
export const DIRECT_NAME_MAX = 64 - 'mcp__airlock__'.length;
const HASH_LENGTH = 8;

export interface ToolRef {
  server: string;
  tool: string;
}

/** The direct name of one tool. */
export function directToolName(ref: ToolRef, max = DIRECT_NAME_MAX): string {
  const full = `${ref.server}__${ref.tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (full.length <= max) return full;
  const hash = createHash('sha256').update(`${ref.server}\0${ref.tool}`).digest('hex').slice(0, HASH_LENGTH);
  return `${full.slice(0, max - HASH_LENGTH - 1)}_${hash}`;
}

export interface DirectNames {
  /** Each tool's name, by `server\0tool`. */
  names: Map<string, string>;
  /** One line for each name two tools would share; those tools get no direct name. */
  collisions: string[];
}

/** The direct names of several tools, refusing any name two of them would share. */
export function directToolNames(refs: readonly ToolRef[], max = DIRECT_NAME_MAX): DirectNames {
  const byName = new Map<string, ToolRef[]>();
  for (const ref of refs) {
    const name = directToolName(ref, max);
    byName.set(name, [...(byName.get(name) ?? []), ref]);
  }
  const names = new Map<string, string>();
  const collisions: string[] = [];
  for (const [name, owners] of byName) {
    if (owners.length === 1) names.set(`${owners[0]!.server}\0${owners[0]!.tool}`, name);
    else
      collisions.push(
        `${owners.map((o) => `${o.server}'s ${JSON.stringify(o.tool)}`).join(' and ')} would both be ${name}: neither is offered directly (rename a server, or reach them with mcp.<server>.<tool> in execute)`,
      );
  }
  return { names, collisions };
}
