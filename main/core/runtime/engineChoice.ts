// The engine × egress grid as the Engine screen draws it, worked out from
// the validity matrix (sandbox/engineMatrix.ts), what this machine has
// (diagnostics/engineInventory.ts) and the policy each combination derives
// (sandbox/egressPolicy.ts), with a fingerprint so a person can tell two
// policies apart at a glance.
import { createHash } from 'node:crypto';
import type { DerivedPolicy, EngineCell, EngineMatrix } from '../../../contract/engine.ts';
import { NETWORK_MODES, ENGINES } from '../../../contract/names.ts';
import type { NetworkMode } from '../config/settings.ts';
import type { EngineName } from '../sandbox/engine.ts';
import { checkEngineNetwork } from '../sandbox/engineMatrix.ts';
import { networkPolicy } from '../sandbox/networkPolicy.ts';
import type { EngineInventory } from '../diagnostics/engineInventory.ts';

export function derivedPolicy(engine: EngineName, egress: NetworkMode, dataDir: string): DerivedPolicy {
  const { enforcedBy, allow, deny } = networkPolicy({ engine, egress, dataDir });
  const body = JSON.stringify({ engine, egress, enforcedBy, allow, deny });
  return { enforcedBy, allow, deny, fingerprint: createHash('sha256').update(body).digest('hex').slice(0, 16) };
}

/** What a combination needs that this machine may not have. */
function missing(engine: EngineName, egress: NetworkMode, inventory: EngineInventory): { reason: string; installHint?: string } | undefined {
  const need = [inventory[engine], ...(egress === 'wrapper' ? [inventory.srt] : [])];
  const names = [engine === 'quickjs' ? 'QuickJS' : engine === 'deno' ? 'Deno' : 'Node', ...(egress === 'wrapper' ? ['the srt wrapper'] : [])];
  for (const [i, component] of need.entries()) {
    if (!component.found) return { reason: `${names[i]}: ${component.detail}`, ...(component.installHint ? { installHint: component.installHint } : {}) };
  }
  return undefined;
}

export function engineCell(
  engine: EngineName,
  egress: NetworkMode,
  inventory: EngineInventory,
  dataDir: string,
  current: { engine: string; egress: string },
): EngineCell {
  const base = { engine, egress, current: current.engine === engine && current.egress === egress, policy: derivedPolicy(engine, egress, dataDir) };
  const verdict = checkEngineNetwork(engine, egress, false);
  if (!verdict.ok) {
    const acknowledged = checkEngineNetwork(engine, egress, true);
    if (!acknowledged.ok) return { ...base, state: 'invalid', reason: verdict.reason };
    const gap = missing(engine, egress, inventory);
    if (gap) return { ...base, state: 'needs-install', ...gap };
    return {
      ...base,
      state: 'needs-acknowledgement',
      reason: 'sandboxed code could reach any host this machine can; choose it only if you accept that',
      ...(acknowledged.banner ? { banner: acknowledged.banner } : {}),
    };
  }
  const gap = missing(engine, egress, inventory);
  if (gap) return { ...base, state: 'needs-install', ...gap };
  return { ...base, state: 'valid', ...(verdict.banner ? { banner: verdict.banner } : {}) };
}

export function engineMatrix(
  inventory: EngineInventory,
  dataDir: string,
  current: { engine: EngineName; egress: NetworkMode },
  lockedBy: string | undefined,
  /** Why the organisation's policy refuses a combination (engines or boundaries it does not allow), or undefined. */
  refusedBy: (engine: EngineName, egress: NetworkMode) => string | undefined = () => undefined,
): EngineMatrix {
  const cells = ENGINES.flatMap((engine) =>
    NETWORK_MODES.map((egress): EngineCell => {
      const cell = engineCell(engine, egress, inventory, dataDir, current);
      const refused = cell.current ? undefined : refusedBy(engine, egress);
      return refused ? { ...cell, state: 'not-allowed', reason: refused } : cell;
    }),
  );
  return { current, ...(lockedBy ? { lockedBy } : {}), cells, components: inventory };
}
