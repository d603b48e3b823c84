// The egress policy a configuration puts the sandbox under, as data: who
// enforces it, what the sandbox may reach (only the gate, on a loopback port
// chosen at start) and, for the wrapper mode, the exact srt settings.
// `airlock print-egress-policy` prints it; the engines enforce the same rules.
import type { EngineName } from './engine.ts';
import type { NetworkMode } from '../config/settings.ts';

export const GATE_PORT_PLACEHOLDER = '<gate port, chosen at start>';

export interface NetworkPolicy {
  engine: EngineName;
  egress: NetworkMode;
  enforcedBy: string;
  allow: { host: string; port: string; purpose: string }[];
  deny: string;
  srt?: Record<string, unknown>;
}

export function networkPolicy(o: {
  engine: EngineName;
  egress: NetworkMode;
  dataDir: string;
  srtSettings?: (gatePort: string) => Record<string, unknown>;
}): NetworkPolicy {
  const gate = {
    host: '127.0.0.1',
    port: GATE_PORT_PLACEHOLDER,
    purpose: "Airlock's egress gate (per-run capability token); the gate alone talks to the API origin",
  };
  if (o.engine === 'quickjs') {
    return {
      engine: 'quickjs',
      egress: o.egress,
      enforcedBy: 'construction: the QuickJS sandbox has no network, filesystem or process APIs; the API client calls the gate in-process',
      allow: [],
      deny: 'everything: no socket can be opened from the sandbox',
    };
  }
  if (o.egress === 'none') {
    return {
      engine: o.engine,
      egress: 'none',
      enforcedBy: 'nothing: the network is not bounded in this mode',
      allow: [{ host: '*', port: '*', purpose: 'any host this machine can reach' }],
      deny: 'nothing',
    };
  }
  if (o.egress === 'executor') {
    return {
      engine: o.engine,
      egress: 'executor',
      enforcedBy: `deno --allow-net=127.0.0.1:${GATE_PORT_PLACEHOLDER} (no other --allow-* permission)`,
      allow: [gate],
      deny: 'every other host, port and protocol',
    };
  }
  return {
    engine: o.engine,
    egress: 'wrapper',
    enforcedBy:
      '@anthropic-ai/sandbox-runtime (srt): bubblewrap network namespace on Linux, sandbox-exec on macOS, with its filtering proxy allowing only the gate',
    allow: [gate],
    deny: "every other host, port and protocol; filesystem writes outside the run's temp dir; reads of the home directory and the data dir",
    ...(o.srtSettings ? { srt: o.srtSettings(GATE_PORT_PLACEHOLDER) } : {}),
  };
}
