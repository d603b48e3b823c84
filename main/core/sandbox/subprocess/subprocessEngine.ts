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
// - Memory (Linux): the prelude waits, before the code runs, until the host
//   has measured the run's processes and lowered the runtime's RLIMIT_DATA
//   to the run's budget; a watchdog samples their RSS (memoryGuard.ts,
//   limits.ts).
// - The run's gate token is closed when the run settles, so a late call from
//   a dying process, or a replay of the token, gets 401.

import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { RunError, RunOutcome, RunRequest, SandboxEngine } from '../engine.ts';
import type { GateProxy } from '../gateProxy.ts';
import type { Logger } from '../../log/logger.ts';
import { BARE_BASELINE_BYTES, resolveSubprocessLimits, type SubprocessLimits } from './limits.ts';
import { buildGuestScript, clientRoots } from './guestPrelude.ts';
import { limitError } from '../runBudget.ts';
import { ChildRun, killGroup } from './childRun.ts';
import type { MemoryCap } from './hostTools.ts';
import { messageOf } from '../../../../contract/values.ts';

export interface LaunchSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The runtime's own command line once it runs (what is left after setpriv, prlimit, env and srt have exec'd or spawned it). */
  runtimeArgv: string[];
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
  /** The OS memory cap of this platform (hostTools' memoryCap). */
  memoryCap: MemoryCap;
  /** What a run's processes hold when its code starts, until a run has been measured (limits.ts' BARE_BASELINE_BYTES). */
  expectedBaselineBytes: number;
}

/**
 * What a runtime engine (Node, Deno) passes alike: its logger and gate proxy, its temp root (removed on close
 * when the engine made it), whether the srt wrapper runs around it, the host paths no message may show (the
 * runtime's own, the temp root, the wrapper's package), the memory cap.
 */
export function runtimeEngineBase(o: {
  logger: Logger;
  proxy: GateProxy;
  tmpRoot: string;
  madeTmpRoot: boolean;
  srt: { found: true; packageDir: string } | { found: false } | undefined;
  memoryCap: MemoryCap;
  runtimePaths: string[];
}): Omit<SubprocessEngineConfig, 'name' | 'label' | 'launch' | 'describeBoundary'> {
  const wrapped = o.srt?.found === true;
  return {
    logger: o.logger,
    proxy: o.proxy,
    tmpRoot: o.tmpRoot,
    ownsTmpRoot: o.madeTmpRoot,
    viaProxy: wrapped,
    hostPaths: [...o.runtimePaths, o.tmpRoot, ...(o.srt?.found ? [o.srt.packageDir] : [])],
    memoryCap: o.memoryCap,
    expectedBaselineBytes: BARE_BASELINE_BYTES,
  };
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

interface LiveChild {
  child: ChildProcess;
  run: ChildRun;
  exited: Promise<void>;
}

export function createSubprocessEngine(config: SubprocessEngineConfig): SubprocessEngine {
  const log = config.logger;
  const live = new Set<LiveChild>();
  let closed = false;
  let runsStarted = 0;
  let lastPid: number | undefined;
  // The V8 heap cap is set at launch from what the last run's processes held when its code started.
  let baselineBytes = config.expectedBaselineBytes;

  function early(started: number, error: RunError): RunOutcome {
    return { ok: false, error, console: [], consoleTruncated: false, durationMs: performance.now() - started };
  }

  async function run(request: RunRequest): Promise<RunOutcome> {
    const started = performance.now();
    if (closed) return early(started, { kind: 'internal', message: `The ${config.label} engine is closed` });
    if (request.signal?.aborted) return early(started, { kind: 'aborted', message: 'Execution was aborted' });
    const limits = resolveSubprocessLimits(request.limits, baselineBytes);
    let runDir: string;
    try {
      runDir = await mkdtemp(join(config.tmpRoot, 'run-'));
    } catch (error) {
      log.error(`could not create a run directory: ${messageOf(error)}`);
      return early(started, { kind: 'internal', message: `The ${config.label} engine could not prepare the run` });
    }
    const removeRunDir = () => {
      rm(runDir, { recursive: true, force: true }).catch((error: unknown) => log.warn(`could not remove a run directory: ${messageOf(error)}`));
    };
    const nonce = randomBytes(12).toString('hex');
    const childRun = new ChildRun({
      name: config.name,
      label: config.label,
      log,
      proxy: config.proxy,
      request,
      limits,
      hostPaths: [...config.hostPaths, runDir, config.tmpRoot],
      nonce,
      memoryCap: config.memoryCap,
      onMeasured: (readyRssBytes) => {
        baselineBytes = readyRssBytes;
      },
    });

    let spec: LaunchSpec | undefined;
    try {
      spec = await config.launch({ runDir, limits });
    } catch (error) {
      log.error(`could not prepare the ${config.label} command: ${messageOf(error)}`);
      childRun.fail({ kind: 'internal', message: `The ${config.label} engine could not prepare the run` }, false);
    }
    if (!spec || childRun.settled || closed) {
      if (!childRun.settled) childRun.fail(limitError('aborted', limits, `The ${config.label} engine was closed`), false);
      removeRunDir();
      return childRun.outcome;
    }

    const script = buildGuestScript({
      runtime: config.name,
      nonce,
      code: request.code,
      roots: clientRoots(request.client).map((r) => ({
        shape: r.shape.json,
        idPrefix: r.idPrefix,
        globals: r.globals,
        ...(r.unavailable ? { unavailable: r.unavailable } : {}),
      })),
      gate: { url: config.proxy.url, port: config.proxy.port, token: childRun.gateToken, viaProxy: config.viaProxy },
      outputBytes: limits.outputBytes,
      ...(config.memoryCap.watched ? { hold: true } : {}),
    });

    runsStarted++;
    const child = childRun.spawn(spec, runDir, script);
    lastPid = child.pid;
    const { promise: exited, resolve: markExited } = Promise.withResolvers<void>();
    const entry: LiveChild = { child, run: childRun, exited };
    live.add(entry);
    log.debug(`run ${request.runId}: ${config.name} child ${child.pid ?? '?'} started`);
    childRun.watchExit(child, () => {
      live.delete(entry);
      markExited();
      removeRunDir();
    });
    return childRun.outcome;
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    const waits: Promise<void>[] = [];
    for (const entry of [...live]) {
      entry.run.fail({ kind: 'aborted', message: `The ${config.label} engine was closed` });
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
