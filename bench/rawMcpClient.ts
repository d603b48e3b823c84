// A bare JSON-RPC client over a child's stdio, for the benchmarks: one line
// out, one line back, nothing else. The SDK's Client also validates every
// answer with zod and compiles a JSON-schema validator per tool on each
// tools/list — client-side work that grows with the server's tool list and
// would be charged to the server. Timing with this client measures what the
// server and the pipe cost, the same way for Airlock and for the floor. In
// either revision: 2025 (initialize first) or 2026-07-28 (server/discover
// first, and the revision's envelope in every request's `_meta`).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export interface RawAnswer {
  id: number;
  result?: { isError?: boolean; content?: { type: string; text?: string }[]; tools?: unknown[] } & Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface RawMcpClient {
  pid: number;
  /** Milliseconds from spawn to the answer to initialize. */
  initializeMs: number;
  request(method: string, params?: unknown): Promise<RawAnswer>;
  /** A tools/call that throws on a protocol error or an `isError` result. */
  call(name: string, args: Record<string, unknown>): Promise<RawAnswer>;
  close(): Promise<void>;
}

export interface RawSpawn {
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Deadline for the answer to initialize (or server/discover). */
  timeoutMs?: number;
  /** The revision spoken (default 2025: initialize). */
  revision?: '2025' | '2026-07-28';
}

export async function startRawClient(options: RawSpawn): Promise<RawMcpClient> {
  const started = performance.now();
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const waiting = new Map<number, { resolve: (a: RawAnswer) => void; reject: (e: Error) => void }>();
  let buffered = '';
  let exited: Error | undefined;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.trim()) continue;
      const message = JSON.parse(line) as RawAnswer;
      if (typeof message.id !== 'number') continue;
      waiting.get(message.id)?.resolve(message);
      waiting.delete(message.id);
    }
  });
  child.on('exit', (code, signal) => {
    exited = new Error(`server exited (${signal ?? code})`);
    for (const w of waiting.values()) w.reject(exited);
    waiting.clear();
  });
  let nextId = 0;
  const modern = options.revision === '2026-07-28';
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const request = (method: string, params: unknown = {}): Promise<RawAnswer> =>
    new Promise((resolve, reject) => {
      if (exited) return reject(exited);
      const id = ++nextId;
      waiting.set(id, { resolve, reject });
      const sent = modern ? { ...(params as object), _meta: envelope } : params;
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: sent })}\n`);
    });
  const deadline = options.timeoutMs ?? 30_000;
  let timer: NodeJS.Timeout | undefined;
  const opening = modern ? 'server/discover' : 'initialize';
  const init = await Promise.race([
    modern
      ? request('server/discover')
      : request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } }),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer to ${opening} within ${deadline} ms`)), deadline))),
  ]).finally(() => clearTimeout(timer));
  const initializeMs = performance.now() - started;
  if (init.error) throw new Error(`${opening}: ${init.error.message}`);
  if (!modern) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    pid: child.pid!,
    initializeMs,
    request,
    call: (name, args) => callTool(request, name, args),
    async close() {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.end();
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.kill('SIGTERM');
      await gone;
      clearTimeout(kill);
    },
  };
}

/** A tools/call through `request` that throws on a protocol error or an `isError` result. */
export async function callTool(
  request: (method: string, params?: unknown) => Promise<RawAnswer>,
  name: string,
  args: Record<string, unknown>,
): Promise<RawAnswer> {
  const answer = await request('tools/call', { name, arguments: args });
  if (answer.error) throw new Error(`${name}: ${answer.error.message}`);
  if (answer.result?.isError) throw new Error(`${name}: ${JSON.stringify(answer.result.content)}`);
  return answer;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function timeEach(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  return times;
}
