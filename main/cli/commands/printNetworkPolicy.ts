// `airlock print-egress-policy --format srt|json`: the network policy the
// configured engine and egress mode put the sandbox under, derived from the
// same code that enforces it, with a sha256 fingerprint of its canonical JSON
// so a reviewer can pin it.
import { createHash } from 'node:crypto';
import { AirlockError } from '../../core/util/errors.ts';
import { checkEngineNetwork } from '../../core/sandbox/engineMatrix.ts';
import { networkPolicy } from '../../core/sandbox/networkPolicy.ts';
import { srtSettingsFor } from '../../core/sandbox/srt/srtWrapper.ts';
import { dataPaths } from '../../core/config/dataDir.ts';
import type { CliContext } from '../context.ts';

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function fingerprintPolicy(policy: unknown): string {
  return `sha256:${createHash('sha256').update(canonical(policy)).digest('hex')}`;
}

export async function printNetworkPolicy(ctx: CliContext, format: 'srt' | 'json'): Promise<void> {
  const { settings } = ctx;
  const verdict = checkEngineNetwork(settings.engine, settings.egress, settings.allowUnrestrictedEgress);
  if (!verdict.ok) throw new AirlockError('usage', verdict.reason);
  const policy = networkPolicy({
    engine: settings.engine,
    egress: verdict.egress,
    dataDir: settings.dataDir,
    srtSettings: (gatePort) => ({ ...srtSettingsFor({ gatePort, tmpDir: '<run dir, created per run>', dataDir: dataPaths(settings.dataDir).root }) }),
  });
  if (format === 'srt') {
    if (!policy.srt)
      throw new AirlockError(
        'usage',
        `--format srt needs --egress wrapper (engine ${settings.engine} runs with egress ${verdict.egress}, which uses no srt policy)`,
      );
    process.stdout.write(JSON.stringify(policy.srt, null, 2) + '\n');
    process.stderr.write(`fingerprint ${fingerprintPolicy(policy.srt)}\n`);
    return;
  }
  const out = { ...policy, fingerprint: fingerprintPolicy(policy) };
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
}
