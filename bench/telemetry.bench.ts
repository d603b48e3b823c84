// npm run bench:telemetry — what an organisation's monitoring costs a call
// when what it sends to is down (issue 40 §2–3: "with the collector,
// Prometheus or syslog down, the call latency stays within 1 ms of telemetry
// off"). The built package's `serve`, once per configuration, each called
// over HTTP by a bare client (bench/httpMcpClient.ts): `execute` of one demo
// GET, which opens the request span, the call span and their counts, and
// writes two audit records (each one a syslog message). Configurations:
// telemetry off; OTLP to a collector that is not there (a closed port);
// /metrics on (Prometheus pulls: nothing of it is on the call's path, and no
// scrape while measuring); syslog over TCP and over UDP to a closed port;
// all of them at once. Measured in turns, R rounds of N calls each, so a
// drifting machine moves every row alike; each row prints its p50 and p95 and
// the p50 difference from "off" beside the goal (≤ +1 ms).
//
//   node bench/telemetry.bench.ts [--calls N] [--rounds R]
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startHttpClient } from './httpMcpClient.ts';
import { percentile } from './rawMcpClient.ts';

const args = process.argv.slice(2);
const flag = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const CALLS = Number(flag('--calls')) || 300;
const ROUNDS = Number(flag('--rounds')) || 3;
const root = resolve(import.meta.dirname, '..');
const cli = join(root, 'dist', 'cli', 'airlock.js');
if (!existsSync(cli)) {
  console.log(`${cli} is not built: run \`npm run build:cli\` first`);
  process.exit(1);
}

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const down = await closedPort();
const OTLP = {
  env: {
    AIRLOCK_TELEMETRY: 'otlp',
    AIRLOCK_TELEMETRY_ENDPOINT: `http://127.0.0.1:${down}`,
    OTEL_BSP_SCHEDULE_DELAY: '200',
    OTEL_METRIC_EXPORT_INTERVAL: '1000',
  },
};
const CONFIGS: Record<string, { args?: string[]; env?: Record<string, string> }> = {
  off: {},
  'OTLP, collector down': OTLP,
  '/metrics on': { args: ['--metrics', 'token'] },
  'syslog tcp, down': { args: ['--syslog', `tcp://127.0.0.1:${down}`] },
  'syslog udp, down': { args: ['--syslog', `udp://127.0.0.1:${down}`] },
  'all three': { ...OTLP, args: ['--metrics', 'token', '--syslog', `tcp://127.0.0.1:${down}`] },
};
const CODE = 'const r = await demo.events.list({ query: { limit: 1 } }); return r.status;';

interface Running {
  child: ChildProcess;
  dir: string;
  url: string;
}

async function start(config: { args?: string[]; env?: Record<string, string> }): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-telemetry-bench-'));
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dir, '--rate-limit', '0', ...(config.args ?? [])], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, AIRLOCK_MANAGED_FILE: join(dir, 'no-policy.json'), ...config.env },
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-8192)));
  const deadline = Date.now() + 60_000;
  while (!/APIs loaded/.test(stderr)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /serving .* on (http:\/\/[^\s]+)\/mcp/.exec(stderr)?.[1];
  if (!url) throw new Error(`no URL in:\n${stderr}`);
  return { child, dir, url };
}

async function stop(r: Running): Promise<void> {
  r.child.kill('SIGTERM');
  await new Promise((resolve) => (r.child.exitCode !== null ? resolve(undefined) : r.child.once('exit', resolve)));
  rmSync(r.dir, { recursive: true, force: true });
}

const times: Record<string, number[]> = Object.fromEntries(Object.keys(CONFIGS).map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, config] of Object.entries(CONFIGS)) {
    const running = await start(config);
    const client = await startHttpClient(`${running.url}/mcp`, readFileSync(join(running.dir, 'token'), 'utf8').trim());
    try {
      for (let i = 0; i < 100; i++) await client.call('execute', { code: CODE });
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now();
        await client.call('execute', { code: CODE });
        times[name]!.push(performance.now() - t);
      }
    } finally {
      await client.close();
      await stop(running);
    }
  }
}

const base = percentile(times.off!, 50);
console.log(`execute of one demo GET over HTTP, ${ROUNDS} rounds × ${CALLS} calls per configuration, in turns`);
console.log(`${'configuration'.padEnd(24)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p50 − off'.padStart(10)}  goal`);
for (const [name, list] of Object.entries(times)) {
  const p50 = percentile(list, 50);
  const diff = p50 - base;
  const goal = name === 'off' ? '' : `≤ +1 ms ${diff <= 1 ? 'met' : 'NOT met'}`;
  console.log(
    `${name.padEnd(24)} ${p50.toFixed(2).padStart(8)} ${percentile(list, 95).toFixed(2).padStart(8)} ${name === 'off' ? ''.padStart(10) : `${diff >= 0 ? '+' : ''}${diff.toFixed(2)}`.padStart(10)}  ${goal}`,
  );
}
