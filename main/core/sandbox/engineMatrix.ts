// The engines × egress validity matrix of the design brief, enforced before
// anything starts. Fail closed: an invalid combination refuses to start with
// a one-line reason; a combination that leaves the network unbounded (node
// or deno with egress none) starts only with an explicit acknowledgement, and
// then with a banner: the two are treated alike. Reasons name the choice both
// ways, the Engine screen's words and the flag, as they are read in both.
import type { EngineName } from './engine.ts';
import type { NetworkMode } from '../config/settings.ts';
import { defaultNetwork } from '../config/settingsSandbox.ts';

export type EngineNetworkCheck = { ok: true; egress: NetworkMode; banner?: string } | { ok: false; reason: string };

/** How to bound the network again, on the Engine screen and on the command line. */
const TO_BOUND =
  'To bound it, choose the QuickJS or Deno engine, or the srt wrapper boundary (the Engine screen; --engine quickjs|deno or --egress wrapper at the command line).';

export const UNBOUNDED_NODE_BANNER = `WARNING: engine node with egress none (acknowledged) — Node's permission model cannot scope the network, so sandboxed code can reach any host this machine can (the API key still never enters the sandbox). ${TO_BOUND}`;

export const UNBOUNDED_DENO_BANNER = `WARNING: engine deno with egress none (acknowledged) — sandboxed code can reach any host this machine can (the API key still never enters the sandbox). ${TO_BOUND}`;

/** The one reason an unbounded network is refused without an acknowledgement, for node and deno alike. */
function unacknowledged(engine: 'node' | 'deno'): string {
  return `engine ${engine} with egress none lets sandboxed code reach any host; refused unless you accept that (the Engine screen's "I accept" box, or --allow-unrestricted-egress at the command line)`;
}

export function checkEngineNetwork(engine: EngineName, egress: NetworkMode | undefined, acknowledgedUnrestricted: boolean): EngineNetworkCheck {
  const mode = egress ?? defaultNetwork(engine);
  switch (engine) {
    case 'quickjs':
      if (mode !== 'executor')
        return {
          ok: false,
          reason: `engine quickjs with egress ${mode} is not a valid combination: QuickJS has no network at all, only the gate (choose the "Engine bounds it" boundary, --egress executor, the default)`,
        };
      return { ok: true, egress: mode };
    case 'deno':
      if (mode === 'none' && !acknowledgedUnrestricted) return { ok: false, reason: unacknowledged('deno') };
      return mode === 'none' ? { ok: true, egress: mode, banner: UNBOUNDED_DENO_BANNER } : { ok: true, egress: mode };
    case 'node':
      if (mode === 'executor')
        return {
          ok: false,
          reason:
            "engine node with egress executor is not a valid combination: Node's permission model cannot scope network egress (choose the srt wrapper boundary, or the Deno or QuickJS engine: the Engine screen; --egress wrapper or --engine deno|quickjs at the command line)",
        };
      if (mode === 'none' && !acknowledgedUnrestricted) return { ok: false, reason: unacknowledged('node') };
      return mode === 'none' ? { ok: true, egress: mode, banner: UNBOUNDED_NODE_BANNER } : { ok: true, egress: mode };
  }
}
