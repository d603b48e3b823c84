// Shared fixtures for the subprocess engine tests (node, deno, srt wrapper):
// a real gate proxy that records the run tokens it hands out, a second local
// HTTP server the sandbox must not reach, a fake data dir holding a canary
// secret, a fake `callApi`, and the checks every engine must pass. Waiting is
// always on a condition (a process gone, a request seen), never on the clock;
// and every wait has a deadline, so a condition that never comes is a failure
// that says what it waited for, never a hang.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startGateProxy, type GateProxy } from '../../main/core/sandbox/gateProxy.ts';
import type { ApiCallRequest, ApiCallResult, RunControl, RunLimits, RunOutcome, RunRequest } from '../../main/core/sandbox/engine.ts';
import type { SubprocessEngine } from '../../main/core/sandbox/subprocess/subprocessEngine.ts';
import { tempDir } from './paths.ts';

export const MANIFEST = {
  operations: [
    { operationId: 'items.list', callPath: ['items', 'list'] },
    { operationId: 'items.create', callPath: ['items', 'create'] },
    { operationId: 'search.run', callPath: ['search'] },
  ],
  globals: ['api', 'oa'],
};

/** Two APIs, each a global of its own name (no `api`). */
export const TWO_APIS = {
  operations: [
    { operationId: 'demo:items.list', callPath: ['demo', 'items', 'list'] },
    { operationId: 'github:repos.get', callPath: ['github', 'repos', 'get'] },
    { operationId: 'mcp@files:write_file', callPath: ['mcp', 'files', 'write_file'] },
  ],
  globals: [],
  namespaces: ['demo', 'github', 'mcp'],
};

/**
 * What every engine must answer to TWO_APIS_CODE: each API under its name, each call tagged with its API, labels
 * named after the API; another MCP server's tool under `mcp`, sent its whole argument (not only path, query…).
 */
export const TWO_APIS_CODE = `
  let label, toolLabel;
  try { await demo.items.list(5); } catch (e) { label = e.message; }
  try { await mcp.files.write_file([1]); } catch (e) { toolLabel = e.message; }
  const tool = (await mcp.files.write_file({ path: 'a.txt', content: 'hi', mode: 1 })).data.echo;
  const bare = (await mcp.files.write_file()).data.echo;
  return [typeof api, (await demo.items.list()).data.echo.operationId, (await github.repos.get({ path: { owner: 'a' } })).data.echo.operationId, typeof github.repos.get, label,
    tool.operationId, tool.body, bare.body, toolLabel];`;
export const TWO_APIS_ANSWER = [
  'undefined',
  'demo:items.list',
  'github:repos.get',
  'function',
  'demo.items.list() takes one argument: an object { path, query, body, headers, cookies }',
  'mcp@files:write_file',
  { path: 'a.txt', content: 'hi', mode: 1 },
  {},
  "mcp.files.write_file() takes one argument: an object of the tool's arguments",
];

export const LIMITS: RunLimits = { timeoutMs: 10_000, memoryBytes: 64 * 1024 * 1024, outputBytes: 256 * 1024 };

export interface RecordingProxy extends GateProxy {
  /** Every run token handed out, in order. */
  tokens: string[];
}

export async function startRecordingProxy(): Promise<RecordingProxy> {
  const proxy = await startGateProxy();
  const tokens: string[] = [];
  return {
    url: proxy.url,
    port: proxy.port,
    tokens,
    openRun(handle) {
      const run = proxy.openRun(handle);
      tokens.push(run.token);
      return run;
    },
    liveRuns: () => proxy.liveRuns(),
    close: () => proxy.close(),
  };
}

/** A local HTTP server the sandbox must not reach: it counts every connection and request. */
export interface OtherServer {
  url: string;
  port: number;
  hits: number;
  connections: number;
  close(): Promise<void>;
}

export async function startOtherServer(): Promise<OtherServer> {
  const state = { hits: 0, connections: 0 };
  const server: Server = createServer((_req, res) => {
    state.hits++;
    res.end('other server reached');
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    get hits() {
      return state.hits;
    },
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Sets a canary API key in this (host) process's environment; the sandbox must never see it. */
export function plantCanary(): { canary: string; restore(): void } {
  const canary = `airlock-canary-${randomBytes(12).toString('hex')}`;
  const previous = process.env.AIRLOCK_API_KEY;
  process.env.AIRLOCK_API_KEY = canary;
  return {
    canary,
    restore: () => {
      if (previous === undefined) delete process.env.AIRLOCK_API_KEY;
      else process.env.AIRLOCK_API_KEY = previous;
    },
  };
}

/** The canary in every spelling an exfiltration could use. */
export function canaryForms(canary: string): string[] {
  return [
    canary,
    Buffer.from(canary).toString('base64'),
    Buffer.from(canary).toString('base64url'),
    Buffer.from(canary).toString('hex'),
    canary.split('').reverse().join(''),
  ];
}

/** A fake Airlock data dir with a secret file in it. */
export function fakeDataDir(canary: string): { dir: string; marker: string; cleanup(): void } {
  const { dir, cleanup } = tempDir('airlock-fake-data-');
  const marker = `data-dir-marker-${randomBytes(8).toString('hex')}`;
  mkdirSync(join(dir, 'profiles'), { recursive: true });
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ marker, key: canary }));
  writeFileSync(join(dir, marker), marker);
  return { dir, marker, cleanup };
}

export interface FakeApi {
  calls: ApiCallRequest[];
  callApi(request: ApiCallRequest, control: RunControl): Promise<ApiCallResult>;
}

export function fakeApi(handler?: (request: ApiCallRequest, control: RunControl) => Promise<ApiCallResult> | ApiCallResult): FakeApi {
  const calls: ApiCallRequest[] = [];
  return {
    calls,
    callApi: async (request, control) => {
      calls.push(request);
      if (handler) return handler(request, control);
      return { data: { echo: request }, error: null, status: 200, headers: { 'x-ratelimit-remaining': '41' } };
    },
  };
}

let runCounter = 0;

export function runCode(
  engine: SubprocessEngine,
  code: string,
  options: { limits?: Partial<RunLimits>; api?: FakeApi; signal?: AbortSignal; onConsole?: RunRequest['onConsole']; client?: RunRequest['client'] } = {},
): Promise<RunOutcome> {
  const api = options.api ?? fakeApi();
  return engine.run({
    runId: `test-${++runCounter}`,
    code,
    client: options.client ?? MANIFEST,
    limits: { ...LIMITS, ...options.limits },
    callApi: api.callApi,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onConsole ? { onConsole: options.onConsole } : {}),
  });
}

/** True while a process group with this id has a member (zombies included). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** How long a wait on a condition may take before it is a failure (a process group gone, a child started). */
export const WAIT_MS = 30_000;

/** Resolves when `check` turns true, checking after every turn of the event loop; rejects after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = WAIT_MS, what = check.toString()): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${timeoutMs} ms for: ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

/** `promise`, or a rejection naming `what` once `timeoutMs` has passed (for event waits). */
export async function within<T>(promise: Promise<T>, what: string, timeoutMs = WAIT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no ${what} within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Processes (any namespace) whose working directory is inside `dir`. */
export function processesUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if (cwd.startsWith(dir)) pids.push(Number(name));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}

/** The environment of a live process, as NAME=value strings. */
export function environOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
}

export function cmdlineOf(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
}

/**
 * Runs a program with a script on stdin and collects its output (the runtime layer without Airlock's prelude).
 * After `timeoutMs` (60 s) its process group is killed and stderr says so.
 */
export function runRaw(
  command: string,
  args: string[],
  script: string,
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? { PATH: '/usr/bin:/bin', NO_COLOR: '1' },
      cwd: options.cwd ?? '/',
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so the deadline takes whatever it started (srt: bubblewrap, socat) with it.
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      stderr += `\n[test] killed after ${timeoutMs} ms`;
      killGroup(child.pid);
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => {});
    child.stdin.end(script);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** SIGKILL to a process group, if it is still there. */
function killGroup(pgid: number | undefined): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The escape attempts every engine must fail: each one is reported, none may throw out of the run. */
export function escapeProgram(o: { dataDir: string; otherPort: number; gatePort: number; endedToken?: string }): string {
  return `
const report = {};
const attempt = async (name, fn) => {
  try { report[name] = { ok: true, value: String(await fn()).slice(0, 300) }; }
  catch (e) { report[name] = { ok: false, error: String((e && e.message) || e).slice(0, 300) }; }
};
const OTHER = 'http://127.0.0.1:${o.otherPort}/';
const GATE = 'http://127.0.0.1:${o.gatePort}/call';
const DATA = ${JSON.stringify(o.dataDir)};
// files
await attempt('importFsPasswd', async () => (await import('node:fs')).readFileSync('/etc/passwd', 'utf8'));
await attempt('importFsData', async () => (await import('node:fs')).readdirSync(DATA).join(','));
await attempt('importFsSecrets', async () => (await import('node:fs')).readFileSync(DATA + '/secrets.json', 'utf8'));
await attempt('denoRead', async () => Deno.readTextFileSync('/etc/passwd'));
await attempt('builtinModule', async () => process.getBuiltinModule('node:fs').readFileSync('/etc/passwd', 'utf8'));
await attempt('processBinding', async () => Object.keys(process.binding('fs')).join(','));
await attempt('require', async () => require('fs').readFileSync('/etc/passwd', 'utf8'));
await attempt('createRequire', async () => (await import('node:module')).createRequire('/x.js')('fs').readFileSync('/etc/passwd', 'utf8'));
await attempt('fetchFile', async () => (await fetch('file:///etc/passwd')).text());
await attempt('importFileUrl', async () => JSON.stringify(await import('file:///etc/passwd')));
// environment
await attempt('processEnv', async () => JSON.stringify(process.env));
await attempt('denoEnv', async () => JSON.stringify(Deno.env.toObject()));
await attempt('importProcessEnv', async () => JSON.stringify((await import('node:process')).env));
await attempt('procEnviron', async () => (await import('node:fs')).readFileSync('/proc/self/environ', 'latin1'));
await attempt('globalNames', async () => Object.getOwnPropertyNames(globalThis).filter((n) => ['process', 'Deno', 'fetch', 'require', 'WebSocket', 'Worker', 'navigator', 'localStorage', 'caches', 'api', 'oa', 'console'].includes(n)).join(','));
// processes and workers
await attempt('childProcess', async () => (await import('node:child_process')).execSync('id').toString());
await attempt('denoCommand', async () => new TextDecoder().decode((await new Deno.Command('id').output()).stdout));
await attempt('processKill', async () => process.kill(process.ppid, 0));
await attempt('worker', async () => { const w = new Worker('data:text/javascript,postMessage(1)', { type: 'module' }); return typeof w; });
await attempt('workerThreads', async () => { const { Worker: W } = await import('node:worker_threads'); return typeof new W('1', { eval: true }); });
await attempt('dlopen', async () => process.dlopen({ exports: {} }, '/lib/x.node'));
// modules
await attempt('importNpm', async () => Object.keys(await import('npm:left-pad')).join(','));
await attempt('importHttps', async () => Object.keys(await import('https://deno.land/std@0.224.0/fmt/colors.ts')).join(','));
await attempt('importJsr', async () => Object.keys(await import('jsr:@std/fmt')).join(','));
// the network: another local server, and the gate without a valid token
await attempt('fetchOther', async () => (await fetch(OTHER)).text());
await attempt('fetchGate', async () => (await fetch(GATE, { method: 'POST', body: '{}' })).status);
await attempt('nodeHttpOther', async () => { const http = await import('node:http'); return await new Promise((res, rej) => http.get(OTHER, (r) => { let b = ''; r.on('data', (d) => (b += d)); r.on('end', () => res(b)); }).on('error', rej)); });
await attempt('nodeNetOther', async () => { const net = await import('node:net'); return await new Promise((res, rej) => { const s = net.connect(${o.otherPort}, '127.0.0.1', () => { s.end(); res('connected'); }); s.on('error', rej); }); });
await attempt('denoConnect', async () => { const c = await Deno.connect({ hostname: '127.0.0.1', port: ${o.otherPort} }); c.close(); return 'connected'; });
await attempt('webSocket', async () => await new Promise((res, rej) => { const w = new WebSocket('ws://127.0.0.1:${o.otherPort}/'); w.onopen = () => res('open'); w.onerror = () => rej(new Error('websocket failed')); }));
await attempt('gateNoToken', async () => { const http = await import('node:http'); return await new Promise((res, rej) => { const q = http.request(GATE, { method: 'POST' }, (r) => res(r.statusCode)); q.on('error', rej); q.end('{"operationId":"items.list"}'); }); });
await attempt('gateEndedToken', async () => (await fetch(GATE, { method: 'POST', headers: { authorization: 'Bearer ${o.endedToken ?? '0'.repeat(64)}' }, body: '{"operationId":"items.list"}' })).status);
return report;
`;
}

/** Attempts that count as an escape if they succeed. */
export const MUST_FAIL = [
  'importFsPasswd',
  'importFsData',
  'importFsSecrets',
  'denoRead',
  'builtinModule',
  'processBinding',
  'require',
  'createRequire',
  'fetchFile',
  'importFileUrl',
  'processEnv',
  'denoEnv',
  'importProcessEnv',
  'procEnviron',
  'childProcess',
  'denoCommand',
  'processKill',
  'worker',
  'workerThreads',
  'dlopen',
  'importNpm',
  'importHttps',
  'importJsr',
  'fetchOther',
  'fetchGate',
  'nodeHttpOther',
  'nodeNetOther',
  'denoConnect',
  'webSocket',
  'gateNoToken',
  'gateEndedToken',
] as const;

/** A raw script (no Airlock prelude) that probes the network with the runtime's own APIs and prints a JSON report. */
export function rawNetworkProbe(o: { otherPort: number; gatePort: number; tokens: { name: string; token: string }[] }): string {
  return `
const report = {};
const probe = async (name, fn) => { try { report[name] = await fn(); } catch (e) { report[name] = 'error: ' + String((e && e.message) || e).slice(0, 200); } };
await probe('other', async () => (await fetch('http://127.0.0.1:${o.otherPort}/')).status);
for (const [name, auth] of ${JSON.stringify(o.tokens.map((t) => [t.name, t.token ? `Bearer ${t.token}` : '']))}) {
  await probe('gate:' + name, async () => (await fetch('http://127.0.0.1:${o.gatePort}/call', { method: 'POST', headers: auth ? { authorization: auth } : {}, body: '{"operationId":"items.list"}' })).status);
}
console.log(JSON.stringify(report));
`;
}

/**
 * Starts test/helpers/sandboxHost.ts (a stand-in host with a never-ending run),
 * waits until its sandbox is running, kills the host with SIGKILL, and
 * resolves once no process is left in the sandbox's directory.
 */
export async function killHostAndWait(args: string[], tmpDir: string, timeoutMs = WAIT_MS): Promise<{ before: number[] }> {
  const host = spawn(process.execPath, [join(import.meta.dirname, 'sandboxHost.ts'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await within(
      new Promise<void>((resolve, reject) => {
        let out = '';
        host.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('running')) resolve();
        });
        host.on('exit', (code) => reject(new Error(`the stand-in host exited (${code}) before its sandbox ran`)));
      }),
      "'running' from the stand-in host",
      timeoutMs,
    );
  } catch (error) {
    host.kill('SIGKILL');
    throw error;
  }
  const before = processesUnder(tmpDir);
  host.kill('SIGKILL');
  await until(() => processesUnder(tmpDir).length === 0, timeoutMs, `no process left in ${tmpDir} after the host was killed`);
  return { before };
}

/** What the runtime-layer suites start before their tests: a recording gate proxy, another server to reach, a temp dir. */
export interface Layer {
  proxy: RecordingProxy;
  other: OtherServer;
  tmp: ReturnType<typeof tempDir>;
  close(): Promise<void>;
}

export async function startLayer(prefix: string): Promise<Layer> {
  const tmp = tempDir(prefix);
  const proxy = await startRecordingProxy();
  const other = await startOtherServer();
  return {
    proxy,
    other,
    tmp,
    close: async () => {
      await proxy.close();
      await other.close();
      tmp.cleanup();
    },
  };
}
