// Spawning the real `airlock` CLI for integration tests, and waiting on what
// it says (readiness markers on stderr), never on the clock.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, NODE, ROOT } from './paths.ts';
import { seedDemoStore } from './demoStore.ts';

export interface Running {
  child: ChildProcess;
  stderr: () => string;
  /** Resolves with the first match of `re` in stderr; rejects if the process exits first or after `timeoutMs` (30 s). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; stdin?: 'pipe' | 'ignore'; /** Another entry point (the built CLI). */ cli?: string } = {},
): Running {
  const env = { ...process.env, ...options.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const child = spawn(NODE, [options.cli ?? CLI, ...args], { cwd: ROOT, env, stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'] });
  let err = '';
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void; reject: (e: Error) => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      const m = err.match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    check();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      for (const w of waiters.splice(0)) w.reject(new Error(`airlock exited (${code ?? signal}) before printing ${w.re}; stderr:\n${err}`));
      resolve({ code, signal });
    });
  });
  return {
    child,
    stderr: () => err,
    waitFor: (re, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const m = err.match(re);
        if (m) return resolve(m);
        if (child.exitCode !== null) return reject(new Error(`airlock already exited; stderr:\n${err}`));
        const timer = setTimeout(() => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) waiters.splice(i, 1);
          reject(new Error(`airlock did not print ${re} within ${timeoutMs} ms; stderr:\n${err}`));
        }, timeoutMs);
        const waiter = {
          re,
          resolve: (found: RegExpMatchArray) => {
            clearTimeout(timer);
            resolve(found);
          },
          reject: (error: Error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        waiters.push(waiter);
      }),
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the CLI to completion and returns its output; kills it (and says so in stderr) after `timeoutMs` (60 s). */
export function runCliToEnd(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, ...options.env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    const child = spawn(NODE, [CLI, ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.end(options.input ?? '');
    const timer = setTimeout(() => {
      stderr += `\n[test] killed after ${options.timeoutMs ?? 60_000} ms`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Served extends Running {
  url: string;
  mcpUrl: string;
  token: string;
}

/**
 * `airlock serve --port 0` in a data dir; resolves once it says where it serves and that its APIs are loaded
 * (they load in the background: a test that acts on the data dir must not race the demo API creating its files).
 */
export async function serve(dataDir: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<Served> {
  await seedDemoStore(dataDir);
  const running = runCli(['serve', '--port', '0', '--data-dir', dataDir, ...args], { env });
  const m = await running.waitFor(/serving .* on (http:\/\/[^\s]+)\/mcp/);
  await running.waitFor(/APIs loaded: /);
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  return { ...running, url: m[1]!, mcpUrl: `${m[1]}/mcp`, token };
}

export interface ChildRun {
  code: number | null;
  output: string;
  ms: number;
  timedOut: boolean;
}

/**
 * Runs a command (often a child `node --test`) to its end with stdout and stderr together, killing its
 * process group at `deadlineMs`. `env` is laid over this process's environment (undefined removes a
 * variable); NODE_TEST_CONTEXT and colours are taken out so a child test runner prints plainly.
 */
export function runToEnd(command: string, args: string[], env: Record<string, string | undefined>, deadlineMs: number): Promise<ChildRun> {
  const merged = { ...process.env, NODE_TEST_CONTEXT: undefined, FORCE_COLOR: undefined, NO_COLOR: '1', ...env };
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(merged)) if (v !== undefined) childEnv[k] = v;
  const started = Date.now();
  return new Promise<ChildRun>((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    let timedOut = false;
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
    }, deadlineMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: Date.now() - started, timedOut });
    });
  });
}
