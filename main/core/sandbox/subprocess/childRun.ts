// One subprocess run from spawn to outcome: the run's clock and output
// budget, its gate capability, its memory guard, the messages the guest
// prelude sends, and the child's exit. The engine (subprocessEngine.ts)
// prepares the directory and command line and keeps the set of live children.
//
// The memory hold: on Linux the prelude, once ready and before the code
// runs, says so on stdout (a line tagged with the nonce, which only the
// prelude knows) and waits for SIGUSR2. The host sends it only after the
// memory guard has measured the runtime and lowered its data cap; the code
// runs only then.
import { spawn, type ChildProcess } from 'node:child_process';
import type { ApiCallRequest, ApiCallResult, ConsoleEntry, RunControl, RunError, RunOutcome, RunRequest } from '../engine.ts';
import type { GateProxy } from '../gateProxy.ts';
import type { Logger } from '../../log/logger.ts';
import type { SubprocessLimits } from './limits.ts';
import { limitError, OutputBudget } from '../runBudget.ts';
import { RunClock } from '../runClock.ts';
import { lineReader, parseGuestLine, type GuestMessage } from './childLines.ts';
import { errorFromExit, errorFromReport, makePathScrubber, makeScrubber, type GuestErrorReport } from './outcome.ts';
import type { MemoryCap } from './hostTools.ts';
import { MemoryGuard } from './memoryGuard.ts';
import { messageOf } from '../../../../contract/values.ts';

/** A runtime that has not said its code is about to run by then has failed to start. */
const STARTUP_TIMEOUT_MS = 30_000;
/** After a result the child exits by itself; if it lingers past this, its group is killed. */
const EXIT_GRACE_MS = 2_000;
/** Kept from the child's stderr, to tell an out-of-memory death from a crash. */
const STDERR_KEEP_BYTES = 64 * 1024;

export interface ChildRunContext {
  name: 'node' | 'deno';
  label: string;
  log: Logger;
  proxy: GateProxy;
  request: RunRequest;
  limits: SubprocessLimits;
  /** Host paths that must never appear in a message the caller sees. */
  hostPaths: string[];
  nonce: string;
  memoryCap: MemoryCap;
  /** What the run's processes held when the code was about to start (RSS, summed). */
  onMeasured?(readyRssBytes: number): void;
}

type Settlement = { ok: true; value: unknown } | { ok: false; error: RunError };

export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill('SIGKILL');
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export class ChildRun {
  readonly outcome: Promise<RunOutcome>;
  readonly gateToken: string;
  readonly #ctx: ChildRunContext;
  readonly #resolve: (outcome: RunOutcome) => void;
  readonly #started = performance.now();
  readonly #entries: ConsoleEntry[] = [];
  readonly #budget: OutputBudget;
  readonly #clock: RunClock;
  readonly #gateRun: { token: string; close(): void };
  readonly #scrub: (text: string) => string;
  readonly #scrubPaths: (text: string) => string;
  readonly #onAbort = () => this.#settle({ ok: false, error: limitError('aborted', this.#ctx.limits) }, true);
  readonly #exitWaiters: (() => void)[] = [];
  #settled = false;
  #startupTimer: NodeJS.Timeout | undefined;
  #child: ChildProcess | undefined;
  #childExited = false;
  #guard: MemoryGuard | undefined;
  #held = false;

  constructor(ctx: ChildRunContext) {
    this.#ctx = ctx;
    const { promise, resolve } = Promise.withResolvers<RunOutcome>();
    this.outcome = promise;
    this.#resolve = resolve;
    this.#budget = new OutputBudget(ctx.limits.outputBytes);
    this.#clock = new RunClock({
      timeoutMs: ctx.limits.timeoutMs,
      onExpire: () => this.#settle({ ok: false, error: limitError('timeout', ctx.limits) }, true),
    });
    this.#scrub = makeScrubber(ctx.hostPaths);
    this.#scrubPaths = makePathScrubber(ctx.hostPaths);
    const control: RunControl = {
      whilePaused: async <T>(wait: () => Promise<T>): Promise<T> => {
        if (this.#settled) return wait();
        this.#clock.pause();
        try {
          return await wait();
        } finally {
          this.#clock.resume();
        }
      },
    };
    this.#gateRun = ctx.proxy.openRun(async (call: ApiCallRequest): Promise<ApiCallResult> => {
      try {
        return await ctx.request.callApi(call, control);
      } catch (error) {
        ctx.log.warn(`callApi failed for ${call.operationId}: ${error instanceof Error ? error.name : 'error'}`);
        return { data: null, error: { message: 'The API call failed inside Airlock' }, status: 0 };
      }
    });
    this.gateToken = this.#gateRun.token;
    ctx.request.signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (ctx.request.signal?.aborted) this.#onAbort();
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** Ends the run before or after spawn with an error (kills the child if there is one). */
  fail(error: RunError, kill = true): void {
    this.#settle({ ok: false, error }, kill);
  }

  /** Spawns the command and feeds it the guest program; resolves `outcome` when the run ends. */
  spawn(spec: { command: string; args: string[]; env: Record<string, string>; runtimeArgv: string[] }, cwd: string, script: string): ChildProcess {
    const child = spawn(spec.command, spec.args, {
      cwd,
      env: spec.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.#child = child;
    const { memoryCap, limits, log } = this.#ctx;
    if (memoryCap.watched && child.pid !== undefined) {
      this.#guard = new MemoryGuard({
        rootPid: child.pid,
        runtimeArgv: spec.runtimeArgv,
        limits,
        prlimit: memoryCap.prlimit,
        log,
        onOver: () => this.#settle({ ok: false, error: limitError('memory', limits) }, true),
      });
    }
    const label = this.#ctx.label;
    this.#startupTimer = setTimeout(
      () => this.fail({ kind: 'internal', message: `The ${label} runtime did not start within ${STARTUP_TIMEOUT_MS / 1000} s` }),
      STARTUP_TIMEOUT_MS,
    );
    // The whole program goes in at once; a child that dies early closes the pipe (EPIPE), which is not ours to report.
    child.stdin!.on('error', () => {});
    child.stdin!.end(script);
    const outputBytes = this.#ctx.limits.outputBytes;
    child.stdout!.on(
      'data',
      lineReader(
        // Limits on what the host will hold or read: one line at most this long, and this much in all.
        { lineBytes: 8 * outputBytes + 64 * 1024, totalBytes: 40 * outputBytes + 1024 * 1024 },
        (line) => this.#onLine(line),
        () => this.#outputExceeded(),
        () => this.#settled,
      ),
    );
    return child;
  }

  /** Watches the child's exit; `onGone` runs once it has exited and its output is read. */
  watchExit(child: ChildProcess, onGone: () => void): void {
    let stderr = '';
    let exitInfo: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_KEEP_BYTES) stderr += chunk.toString('utf8').slice(0, STDERR_KEEP_BYTES - stderr.length);
    });
    let gone = false;
    const whenGone = () => {
      if (gone) return;
      gone = true;
      this.#childExited = true;
      this.#guard?.stop();
      if (!this.#settled) {
        if (stderr.trim()) this.#ctx.log.warn(`${this.#ctx.name} child ${child.pid ?? '?'} ended without an outcome; stderr: ${stderr.trim().slice(-2000)}`);
        const nearCap = this.#guard?.nearDataCap() ?? false;
        this.#settle({ ok: false, error: errorFromExit(exitInfo, stderr, this.#ctx.limits, this.#ctx.label, nearCap) }, false);
      }
      for (const waiter of this.#exitWaiters.splice(0)) waiter();
      onGone();
    };
    child.on('error', (error) => {
      this.#ctx.log.error(`could not run ${this.#ctx.name}: ${error.message}`);
      this.#settle({ ok: false, error: { kind: 'internal', message: `The ${this.#ctx.label} runtime could not be started` } }, false);
      whenGone();
    });
    child.on('exit', (code, signal) => {
      exitInfo = { code, signal };
      // Normally 'close' follows at once; a descendant still holding stdout must not keep the run open.
      setTimeout(whenGone, 1_000).unref();
    });
    // 'close': the process has exited and its stdout is read to the end.
    child.on('close', (code, signal) => {
      exitInfo = { code, signal };
      whenGone();
    });
  }

  /** The prelude is ready and waits: cap the run's memory, then let the code run. */
  async #hold(): Promise<void> {
    const { label, log, name } = this.#ctx;
    const guard = this.#guard;
    if (this.#held || this.#settled || !guard) return;
    this.#held = true;
    let runtimePid: number;
    try {
      const armed = await guard.arm();
      runtimePid = armed.runtimePid;
      this.#ctx.onMeasured?.(armed.readyRssBytes);
      const mb = (bytes: number) => Math.round(bytes / 1048576);
      log.debug(
        `${name} run: processes hold ${mb(armed.readyRssBytes)} MB at start; data budget ${mb(armed.dataBudgetBytes)} MB` +
          (armed.dataLimitBytes === undefined ? ' (no prlimit: watchdog only)' : ` (RLIMIT_DATA ${mb(armed.dataLimitBytes)} MB)`) +
          `, watchdog at ${mb(armed.watchBytes)} MB`,
      );
    } catch (error) {
      // A run that ended meanwhile (deadline, abort, its process gone) has nothing left to cap.
      if (this.#settled) return;
      log.error(`could not cap the memory of a ${name} run: ${messageOf(error)}`);
      this.fail({ kind: 'internal', message: `The ${label} engine could not put the run under its memory cap` });
      return;
    }
    if (this.#settled) return;
    try {
      process.kill(runtimePid, 'SIGUSR2');
    } catch (error) {
      if (!this.#settled) this.fail({ kind: 'internal', message: `The ${label} runtime could not be told to start: ${messageOf(error)}` });
    }
  }

  #onLine(line: string): void {
    const message = parseGuestLine(line, this.#ctx.nonce);
    if (message) this.#onMessage(message);
  }

  #onMessage(message: GuestMessage): void {
    const { label, limits } = this.#ctx;
    switch (message.type) {
      case 'hold':
        void this.#hold();
        return;
      case 'ready':
        if (this.#startupTimer) clearTimeout(this.#startupTimer);
        this.#startupTimer = undefined;
        this.#clock.start();
        return;
      case 'console':
        return this.#addConsole(message.level, this.#scrubPaths(message.text));
      case 'result': {
        if (message.payload === '') return this.#settle({ ok: true, value: undefined }, false);
        if (Buffer.byteLength(message.payload, 'utf8') > this.#budget.room) return this.#outputExceeded();
        try {
          return this.#settle({ ok: true, value: JSON.parse(this.#scrubPaths(message.payload)) }, false);
        } catch {
          return this.fail({ kind: 'internal', message: `The ${label} sandbox sent an unreadable result` });
        }
      }
      case 'error': {
        let report: GuestErrorReport;
        try {
          report = JSON.parse(message.payload) as GuestErrorReport;
        } catch {
          return this.fail({ kind: 'internal', message: `The ${label} sandbox sent an unreadable error` });
        }
        return this.#settle({ ok: false, error: errorFromReport(report, limits, this.#scrub) }, false);
      }
    }
  }

  #addConsole(level: ConsoleEntry['level'], text: string): void {
    const { entry, exceeded } = this.#budget.write(level, text);
    if (entry) this.#entries.push(entry);
    if (exceeded) return this.#outputExceeded();
    try {
      this.#ctx.request.onConsole?.(entry!);
    } catch (error) {
      this.#ctx.log.warn(`onConsole listener failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #outputExceeded(): void {
    this.#settle({ ok: false, error: limitError('output', this.#ctx.limits) }, true);
  }

  #settle(result: Settlement, kill: boolean): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#guard?.stop();
    this.#clock.stop();
    if (this.#startupTimer) clearTimeout(this.#startupTimer);
    this.#gateRun.close();
    this.#ctx.request.signal?.removeEventListener('abort', this.#onAbort);
    const common = { console: this.#entries, consoleTruncated: this.#budget.truncated, durationMs: performance.now() - this.#started };
    const outcome: RunOutcome = result.ok ? { ok: true, value: result.value, ...common } : { ok: false, error: result.error, ...common };
    const child = this.#child;
    if (!child || this.#childExited) return this.#resolve(outcome);
    if (kill) {
      killGroup(child);
      this.#exitWaiters.push(() => this.#resolve(outcome));
      return;
    }
    this.#resolve(outcome);
    const grace = setTimeout(() => killGroup(child), EXIT_GRACE_MS);
    grace.unref();
    this.#exitWaiters.push(() => clearTimeout(grace));
  }
}
