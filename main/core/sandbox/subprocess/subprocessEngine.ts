// The machinery the Node and Deno engines share: one fresh process per run,
// talking to the host over its stdout (JSON lines tagged with the run's
// nonce) and reaching the API only through the gate proxy with a per-run
// capability token. The engines supply the command line; this module owns
// the run's life.
//
// What it guarantees:
// - The code travels on stdin, inside the one-line guest program; never in
//   argv or the environment. The environment is whatever the engine built
//   from scratch (no inherited variables, no credential).
// - The child runs in its own process group; on the deadline, an abort, the
//   output cap or `close()` the whole group gets SIGKILL, and the run's
//   outcome is returned once the child has exited. (The engines' command
//   lines add the OS limits and the parent-death guard, see hostTools.ts.)
// - The deadline is a host timer that starts when the guest program says its
//   code is about to run (runtime startup does not count), stops while the
//   host is inside `control.whilePaused(...)`, and resumes after.
// - Console output plus the return value are capped: over the cap the run is
//   killed with kind `output`; the host never buffers more than one bounded
//   line, so a flood of output ends quickly.
// - The run's gate token is closed when the run settles, so a late call from
//   a dying process, or a replay of the token, gets 401.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { ApiCallRequest, ApiCallResult, ConsoleEntry, ConsoleLevel, RunControl, RunError, RunOutcome, RunRequest, SandboxEngine } from '../engine.ts';
import type { GateProxy } from '../../egress/gateProxy.ts';
import type { Logger } from '../../log/logger.ts';
import { resolveSubprocessLimits, type SubprocessLimits } from './limits.ts';
import { buildGuestScript, clientGlobals, clientTree, LINE_CONSOLE, LINE_ERROR, LINE_READY, LINE_RESULT } from './guestPrelude.ts';
import { errorFromExit, errorFromReport, limitError, makePathScrubber, makeScrubber, type GuestErrorReport } from './outcome.ts';

export interface LaunchSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface SubprocessEngineConfig {
  name: 'node' | 'deno';
  /** How the runtime is named in messages: `Node`, `Deno`. */
  label: string;
  logger: Logger;
  proxy: GateProxy;
  /** Parent of the per-run directories. */
  tmpRoot: string;
  /** Remove `tmpRoot` on close (the engine created it). */
  ownsTmpRoot: boolean;
  /** The guest reaches the gate through the HTTP proxy the wrapper puts in its environment. */
  viaProxy: boolean;
  /** The command for one run; `runDir` exists, is empty, and is the child's working directory. */
  launch(run: { runDir: string; limits: SubprocessLimits }): Promise<LaunchSpec> | LaunchSpec;
  describeBoundary(): string;
  /** Host paths that must never appear in a message the caller sees. */
  hostPaths: string[];
}

export interface SubprocessEngineStats {
  runsStarted: number;
  /** Children (process groups) not yet exited. */
  liveChildren: number;
  /** Process id (= process group id) of the most recent child. */
  lastPid?: number;
}

export interface SubprocessEngine extends SandboxEngine {
  stats(): SubprocessEngineStats;
}

/** A runtime that has not said its code is about to run by then has failed to start. */
const STARTUP_TIMEOUT_MS = 30_000;
/** After a result the child exits by itself; if it lingers past this, its group is killed. */
const EXIT_GRACE_MS = 2_000;
/** Kept from the child's stderr, to tell an out-of-memory death from a crash. */
const STDERR_KEEP_BYTES = 64 * 1024;
const LEVELS: ReadonlySet<string> = new Set(['log', 'info', 'warn', 'error', 'debug']);

interface LiveChild {
  child: ChildProcess;
  /** Ends the run now (the engine is closing). */
  abort(message: string): void;
  exited: Promise<void>;
}

function cutToBytes(text: string, bytes: number): string {
  if (bytes <= 0) return '';
  const buffer = Buffer.from(text, 'utf8');
  let end = Math.min(bytes, buffer.length);
  while (end > 0 && end < buffer.length && (buffer[end]! & 0xc0) === 0x80) end--;
  return buffer.subarray(0, end).toString('utf8');
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill('SIGKILL');
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export function createSubprocessEngine(config: SubprocessEngineConfig): SubprocessEngine {
  const log = config.logger;
  const live = new Set<LiveChild>();
  let closed = false;
  let runsStarted = 0;
  let lastPid: number | undefined;

  function early(started: number, error: RunError): RunOutcome {
    return { ok: false, error, console: [], consoleTruncated: false, durationMs: performance.now() - started };
  }

  async function run(request: RunRequest): Promise<RunOutcome> {
    const started = performance.now();
    if (closed) return early(started, { kind: 'internal', message: `The ${config.label} engine is closed` });
    if (request.signal?.aborted) return early(started, { kind: 'aborted', message: 'Execution was aborted' });
    const limits = resolveSubprocessLimits(request.limits);
    let runDir: string;
    try {
      runDir = await mkdtemp(join(config.tmpRoot, 'run-'));
    } catch (error) {
      log.error(`could not create a run directory: ${(error as Error).message}`);
      return early(started, { kind: 'internal', message: `The ${config.label} engine could not prepare the run` });
    }
    const hostPaths = [...config.hostPaths, runDir, config.tmpRoot];
    const scrub = makeScrubber(hostPaths);
    const scrubPaths = makePathScrubber(hostPaths);
    const nonce = randomBytes(12).toString('hex');

    const entries: ConsoleEntry[] = [];
    let consoleBytes = 0;
    let consoleTruncated = false;
    let settled = false;
    let phase: 'starting' | 'running' = 'starting';
    let timer: NodeJS.Timeout | undefined;
    let deadlineAt = 0;
    let remainingMs = limits.timeoutMs;
    let pauseDepth = 0;
    /** The child, once spawned. */
    const proc: { child?: ChildProcess } = {};
    let childExited = false;
    let exitInfo: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };
    let stderr = '';
    const exitWaiters: (() => void)[] = [];
    const { promise, resolve } = Promise.withResolvers<RunOutcome>();

    // ---- the deadline ----------------------------------------------------------
    const clearTimer = () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    };
    const arm = (ms: number, onFire: () => void) => {
      clearTimer();
      deadlineAt = performance.now() + ms;
      timer = setTimeout(onFire, ms);
    };
    const onDeadline = () => settle({ ok: false, error: limitError('timeout', limits) }, true);
    const pause = () => {
      if (settled || pauseDepth++ > 0 || phase !== 'running') return;
      remainingMs = Math.max(0, deadlineAt - performance.now());
      clearTimer();
    };
    const resume = () => {
      if (pauseDepth === 0 || --pauseDepth > 0 || settled || phase !== 'running') return;
      arm(remainingMs, onDeadline);
    };

    // ---- the gate --------------------------------------------------------------
    const control: RunControl = {
      whilePaused: async <T>(wait: () => Promise<T>): Promise<T> => {
        if (settled) return wait();
        pause();
        try {
          return await wait();
        } finally {
          resume();
        }
      },
    };
    const gateRun = config.proxy.openRun(async (call: ApiCallRequest): Promise<ApiCallResult> => {
      try {
        return await request.callApi(call, control);
      } catch (error) {
        log.warn(`callApi failed for ${call.operationId}: ${error instanceof Error ? error.name : 'error'}`);
        return { data: null, error: { message: 'The API call failed inside Airlock' }, status: 0 };
      }
    });

    // ---- settling --------------------------------------------------------------
    const onAbort = () => settle({ ok: false, error: limitError('aborted', limits) }, true);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    if (request.signal?.aborted) onAbort(); // aborted while the run directory was being made

    function settle(result: { ok: true; value: unknown } | { ok: false; error: RunError }, kill: boolean): void {
      if (settled) return;
      settled = true;
      clearTimer();
      gateRun.close();
      request.signal?.removeEventListener('abort', onAbort);
      const durationMs = performance.now() - started;
      const outcome: RunOutcome = result.ok
        ? { ok: true, value: result.value, console: entries, consoleTruncated, durationMs }
        : { ok: false, error: result.error, console: entries, consoleTruncated, durationMs };
      const child = proc.child;
      if (!child || childExited) {
        resolve(outcome);
        return;
      }
      if (kill) {
        killGroup(child);
        exitWaiters.push(() => resolve(outcome));
        return;
      }
      resolve(outcome);
      const lingering = child;
      const grace = setTimeout(() => killGroup(lingering), EXIT_GRACE_MS);
      grace.unref();
      exitWaiters.push(() => clearTimeout(grace));
    }

    const outputExceeded = () => settle({ ok: false, error: limitError('output', limits) }, true);

    // ---- messages from the guest program ----------------------------------------
    const addConsole = (level: ConsoleLevel, text: string) => {
      const room = limits.outputBytes - consoleBytes;
      const bytes = Buffer.byteLength(text, 'utf8') + 1;
      if (bytes > room) {
        const kept = cutToBytes(text, room - 1);
        if (kept.length > 0) entries.push({ level, text: kept });
        consoleBytes = limits.outputBytes;
        consoleTruncated = true;
        outputExceeded();
        return;
      }
      consoleBytes += bytes;
      const entry = { level, text };
      entries.push(entry);
      try {
        request.onConsole?.(entry);
      } catch (error) {
        log.warn(`onConsole listener failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    };

    const handleLine = (line: string) => {
      if (!line.startsWith(nonce)) return; // not the prelude's: counted, never trusted
      const type = line[nonce.length];
      const payload = line.slice(nonce.length + 1);
      switch (type) {
        case LINE_READY:
          if (phase === 'starting') {
            phase = 'running';
            if (pauseDepth > 0) {
              clearTimer();
              remainingMs = limits.timeoutMs;
            } else arm(limits.timeoutMs, onDeadline);
          }
          return;
        case LINE_CONSOLE: {
          let entry: unknown;
          try {
            entry = JSON.parse(payload);
          } catch {
            return;
          }
          if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string' || !LEVELS.has(entry[0])) return;
          addConsole(entry[0] as ConsoleLevel, scrubPaths(entry[1]));
          return;
        }
        case LINE_RESULT: {
          if (payload === '') return settle({ ok: true, value: undefined }, false);
          if (Buffer.byteLength(payload, 'utf8') > limits.outputBytes - consoleBytes) return outputExceeded();
          try {
            return settle({ ok: true, value: JSON.parse(scrubPaths(payload)) }, false);
          } catch {
            return settle({ ok: false, error: { kind: 'internal', message: `The ${config.label} sandbox sent an unreadable result` } }, true);
          }
        }
        case LINE_ERROR: {
          let report: GuestErrorReport;
          try {
            report = JSON.parse(payload) as GuestErrorReport;
          } catch {
            return settle({ ok: false, error: { kind: 'internal', message: `The ${config.label} sandbox sent an unreadable error` } }, true);
          }
          return settle({ ok: false, error: errorFromReport(report, limits, scrub) }, false);
        }
      }
    };

    // ---- the process -------------------------------------------------------------
    const removeRunDir = () => {
      rm(runDir, { recursive: true, force: true }).catch((error: unknown) => log.warn(`could not remove a run directory: ${(error as Error).message}`));
    };

    let spec: LaunchSpec;
    try {
      spec = await config.launch({ runDir, limits });
    } catch (error) {
      log.error(`could not prepare the ${config.label} command: ${(error as Error).message}`);
      settle({ ok: false, error: { kind: 'internal', message: `The ${config.label} engine could not prepare the run` } }, false);
      removeRunDir();
      return promise;
    }
    if (settled || closed) {
      if (!settled) settle({ ok: false, error: limitError('aborted', limits, `The ${config.label} engine was closed`) }, false);
      removeRunDir();
      return promise;
    }

    const script = buildGuestScript({
      runtime: config.name,
      nonce,
      code: request.code,
      tree: clientTree(request.client.operations),
      globals: clientGlobals(request.client.globals),
      gate: { url: config.proxy.url, port: config.proxy.port, token: gateRun.token, viaProxy: config.viaProxy },
      outputBytes: limits.outputBytes,
    });

    runsStarted++;
    const spawned = spawn(spec.command, spec.args, {
      cwd: runDir,
      env: spec.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    proc.child = spawned;
    lastPid = spawned.pid;
    let markExited: () => void = () => {};
    const exited = new Promise<void>((r) => (markExited = r));
    const entry: LiveChild = {
      child: spawned,
      abort: (message) => settle({ ok: false, error: limitError('aborted', limits, message) }, true),
      exited,
    };
    live.add(entry);
    log.debug(`run ${request.runId}: ${config.name} child ${spawned.pid ?? '?'} started`);

    arm(STARTUP_TIMEOUT_MS, () =>
      settle({ ok: false, error: { kind: 'internal', message: `The ${config.label} runtime did not start within ${STARTUP_TIMEOUT_MS / 1000} s` } }, true),
    );

    // The whole program goes in at once; a child that dies early closes the pipe (EPIPE), which is not ours to report.
    spawned.stdin.on('error', () => {});
    spawned.stdin.end(script);

    // Limits on what the host will hold or read: one line at most this long, and this much in all.
    const lineCap = 8 * limits.outputBytes + 64 * 1024;
    const rawCap = 40 * limits.outputBytes + 1024 * 1024;
    let rawBytes = 0;
    let partial: Buffer[] = [];
    let partialBytes = 0;
    spawned.stdout.on('data', (chunk: Buffer) => {
      if (settled) return;
      rawBytes += chunk.length;
      if (rawBytes > rawCap) return outputExceeded();
      let start = 0;
      while (!settled) {
        const newline = chunk.indexOf(10, start);
        if (newline === -1) {
          if (start < chunk.length) {
            partial.push(chunk.subarray(start));
            partialBytes += chunk.length - start;
            if (partialBytes > lineCap) outputExceeded();
          }
          return;
        }
        const piece = chunk.subarray(start, newline);
        const line = partial.length > 0 ? Buffer.concat([...partial, piece]) : piece;
        partial = [];
        partialBytes = 0;
        handleLine(line.toString('utf8'));
        start = newline + 1;
      }
    });
    spawned.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_KEEP_BYTES) stderr += chunk.toString('utf8').slice(0, STDERR_KEEP_BYTES - stderr.length);
    });

    let gone = false;
    const onGone = () => {
      if (gone) return;
      gone = true;
      childExited = true;
      live.delete(entry);
      if (!settled) {
        if (stderr.trim()) log.warn(`${config.name} child ${spawned.pid ?? '?'} ended without an outcome; stderr: ${stderr.trim().slice(-2000)}`);
        settle({ ok: false, error: errorFromExit(exitInfo, stderr, limits, config.label) }, false);
      }
      for (const waiter of exitWaiters.splice(0)) waiter();
      markExited();
      removeRunDir();
    };
    spawned.on('error', (error) => {
      log.error(`could not run ${config.name}: ${error.message}`);
      settle({ ok: false, error: { kind: 'internal', message: `The ${config.label} runtime could not be started` } }, false);
      onGone();
    });
    spawned.on('exit', (code, signal) => {
      exitInfo = { code, signal };
      // Normally 'close' follows at once; a descendant still holding stdout must not keep the run open.
      setTimeout(onGone, 1_000).unref();
    });
    // 'close': the process has exited and its stdout is read to the end.
    spawned.on('close', (code, signal) => {
      exitInfo = { code, signal };
      onGone();
    });
    return promise;
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    const waits: Promise<void>[] = [];
    for (const entry of [...live]) {
      entry.abort(`The ${config.label} engine was closed`);
      killGroup(entry.child);
      waits.push(entry.exited);
    }
    await Promise.allSettled(waits);
    if (config.ownsTmpRoot) await rm(config.tmpRoot, { recursive: true, force: true }).catch(() => undefined);
  }

  return {
    name: config.name,
    describeBoundary: config.describeBoundary,
    run,
    close,
    stats: () => ({ runsStarted, liveChildren: live.size, ...(lastPid === undefined ? {} : { lastPid }) }),
  };
}
