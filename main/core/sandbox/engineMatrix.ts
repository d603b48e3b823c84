// The engines × egress validity matrix of the design brief, enforced before
// anything starts. Fail closed: an invalid combination refuses to start with
// a one-line reason; a combination that leaves the network unbounded starts
// only with a banner (node + none) or an explicit acknowledgement (deno + none).
import type { EngineName } from './engine.ts';
import type { NetworkMode } from '../config/settings.ts';

export type EngineNetworkCheck = { ok: true; egress: NetworkMode; banner?: string } | { ok: false; reason: string };

export function defaultNetwork(engine: EngineName): NetworkMode {
  return engine === 'node' ? 'wrapper' : 'executor';
}

export const UNBOUNDED_NODE_BANNER =
  "WARNING: engine node with egress none — Node's permission model cannot scope the network, so sandboxed code can reach any host this machine can (the API key still never enters the sandbox). Use --engine quickjs, --engine deno, or --egress wrapper to bound it.";

export const UNBOUNDED_DENO_BANNER =
  'WARNING: engine deno with egress none (acknowledged with --allow-unrestricted-egress) — sandboxed code can reach any host this machine can (the API key still never enters the sandbox).';

export function checkEngineNetwork(engine: EngineName, egress: NetworkMode | undefined, acknowledgedUnrestricted: boolean): EngineNetworkCheck {
  const mode = egress ?? defaultNetwork(engine);
  switch (engine) {
    case 'quickjs':
      if (mode !== 'executor')
        return {
          ok: false,
          reason: `--engine quickjs with --egress ${mode} is not a valid combination: QuickJS has no network at all, only the gate (use --egress executor, the default)`,
        };
      return { ok: true, egress: mode };
    case 'deno':
      if (mode === 'none' && !acknowledgedUnrestricted) {
        return {
          ok: false,
          reason: '--engine deno with --egress none lets sandboxed code reach any host; refused unless you also pass --allow-unrestricted-egress',
        };
      }
      return mode === 'none' ? { ok: true, egress: mode, banner: UNBOUNDED_DENO_BANNER } : { ok: true, egress: mode };
    case 'node':
      if (mode === 'executor')
        return {
          ok: false,
          reason:
            "--engine node with --egress executor is not a valid combination: Node's permission model cannot scope network egress (use --egress wrapper, or --engine deno / quickjs)",
        };
      return mode === 'none' ? { ok: true, egress: mode, banner: UNBOUNDED_NODE_BANNER } : { ok: true, egress: mode };
  }
}
