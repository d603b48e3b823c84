// What the start-up benches share: spawn a command and time its answer to
// `initialize` (on stdio, or over HTTP for `serve`), read a process's RSS,
// and print a series.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { percentile } from './rawMcpClient.ts';

export const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
});

/** Node itself answering a line: the floor of any spawn-to-answer figure on this machine. */
export const FLOOR_ARGV = ['-e', 'process.stdin.once("data", () => process.stdout.write("{}\\n"))'];

/**
 * The floor of an MCP server on this machine: bench/floorServer.ts (the official SDK, one tool) bundled the way
 * the CLI is (rolldown, dependencies inside) into `dir`, run with a compile cache there as the CLI is. Returns the
 * argv to spawn it.
 */
export async function bundledSdkFloor(dir: string): Promise<string[]> {
  const { build } = await import('rolldown');
  await build({
    input: resolve(import.meta.dirname, 'floorServer.ts'),
    platform: 'node',
    resolve: { mainFields: ['module', 'main'] },
    external: [/^node:/],
    output: { file: join(dir, 'floor.mjs'), format: 'esm', codeSplitting: false },
    logLevel: 'warn',
  });
  const entry = join(dir, 'run.mjs');
  writeFileSync(
    entry,
    `import m from 'node:module';\nm.enableCompileCache(${JSON.stringify(join(dir, 'cache'))});\nawait import('./floor.mjs');\nm.flushCompileCache();\n`,
  );
  return [entry];
}

export const fmt = (v: number[]) =>
  `p50 ${percentile(v, 50).toFixed(0).padStart(4)} ms, p95 ${percentile(v, 95).toFixed(0).padStart(4)} ms, min ${Math.min(...v).toFixed(0)} ms`;

export interface Start {
  /** Spawn → the answer to initialize. */
  ms: number;
  stderr: string;
  /** Spawn → the first stderr line matching `waitFor`, when asked. */
  waitedMs?: number;
  rssMb?: number;
}

export function rssOf(pid: number): number | undefined {
  if (!existsSync(`/proc/${pid}/status`)) return undefined; // not Linux, or the process is gone
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : undefined;
}

/**
 * Spawn → the first line on stdout (the answer to initialize). With `waitFor`, the process is kept until a stderr
 * line matches it too (e.g. "APIs loaded"); with `idleRss`, its RSS is read a second after that.
 */
export function timeToInitialize(argv: string[], options: { idleRss?: boolean; waitFor?: RegExp; timeoutMs?: number } = {}): Promise<Start> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    let ms: number | undefined;
    let waitedMs: number | undefined;
    let finishing = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`no answer to initialize${options.waitFor ? ` or ${options.waitFor}` : ''} in time: ${argv.join(' ')}\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    const maybeFinish = () => {
      if (finishing || ms === undefined || (options.waitFor && waitedMs === undefined)) return;
      finishing = true;
      clearTimeout(timer);
      const finish = (rssMb?: number) => {
        child.once('exit', () => done({ ms: ms!, stderr, ...(waitedMs !== undefined ? { waitedMs } : {}), ...(rssMb !== undefined ? { rssMb } : {}) }));
        child.stdin.end();
        child.kill();
      };
      if (!options.idleRss) return finish();
      setTimeout(() => finish(rssOf(child.pid!)), 1000);
    };
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (options.waitFor && waitedMs === undefined && options.waitFor.test(stderr)) {
        waitedMs = performance.now() - started;
        maybeFinish();
      }
    });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (ms !== undefined || !out.includes('\n')) return;
      ms = performance.now() - started;
      maybeFinish();
    });
    child.stdin.write(INIT + '\n');
  });
}

/** Spawn `serve` → its "serving" line → an HTTP initialize answered. */
export async function serveToInitialize(cli: string, dataDir: string, extra: string[] = []): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'info', ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const url = await new Promise<string>((done, fail) => {
      let stderr = '';
      const timer = setTimeout(() => fail(new Error(`serve did not start within 60 s:\n${stderr}`)), 60_000);
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        // The port is bound (and initialize answered) before the companion is built: its first line names the URL.
        const m = /(?:listening|serving .*) on (http:\/\/[^\s;]+)\/mcp/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          done(`${m[1]}/mcp`);
        }
      });
    });
    const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: INIT,
    });
    await response.text();
    if (!response.ok) throw new Error(`initialize over HTTP: ${response.status}`);
    return performance.now() - started;
  } finally {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill();
    await gone;
  }
}

export async function runs<T>(n: number, fn: () => Promise<T>): Promise<T[]> {
  const all: T[] = [];
  for (let i = 0; i < n; i++) all.push(await fn());
  return all;
}
