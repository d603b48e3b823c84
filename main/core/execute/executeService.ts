// What `execute` does, independent of MCP: kill switch, caps and queue, one
// sandbox run with every API call bound to the egress gate and the run's
// context, console lines to the live log, and the answer formatted and
// capped ("a string as is, anything else as JSON", a visible truncation
// marker), with the credential scrubbed one last time.
import { createHash, randomUUID } from 'node:crypto';
import type { ConsoleEntry, RunLimits, RunOutcome, SandboxEngine } from '../sandbox/engine.ts';
import type { RunClient } from './runClient.ts';
import type { CallerInfo, Elicit } from '../approvals/types.ts';
import type { RunCallSummary } from '../gate/runContext.ts';
import type { Logger } from '../log/logger.ts';
import type { LogBuffer, LogLevel } from '../log/logBuffer.ts';
import { CapacityError, type ExecutionCaps } from './caps.ts';
import { HeldRuns, KEEP_FINISHED_MS, type HeldApprovals } from './heldRuns.ts';
import { requestLine, type PendingApproval } from '../../../contract/approvals.ts';
import { messageOf } from '../../../contract/values.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';

export const MAX_CODE_BYTES = 256 * 1024;

export interface ExecuteOutcome {
  runId: string;
  isError: boolean;
  text: string;
  /** `ok`, an engine error kind, why it never ran, or `held`: it waits for a person, and `execute {resume}` follows it. */
  outcome: 'ok' | RunOutcomeKind | 'killed' | 'capacity' | 'invalid' | 'held';
  durationMs: number;
  apiCalls: number;
  bytesOut: number;
  truncated: boolean;
  scriptSha256: string;
  /** Set when the call is answered before its run is over: the run waits for a person at this call. */
  held?: HeldRun;
}

/** What a "held" answer tells the model: the run to resume, the call that waits, and until when. */
export interface HeldRun {
  id: string;
  operation: string;
  expiresAt: string;
}

type RunOutcomeKind = Extract<RunOutcome, { ok: false }>['error']['kind'];

export interface ExecuteServiceOptions {
  engine: SandboxEngine;
  /**
   * The client a run gets for the APIs its session may reach (none given: every API served), once they are
   * loaded; a string says why there is none (an API not served, or one that failed to load).
   */
  client(scope: readonly string[] | undefined, options: { defaultApi?: string }): Promise<RunClient | string>;
  caps: ExecutionCaps;
  /** Read at each run, so a change applies to the next one. */
  limits: () => RunLimits;
  killSwitch(): boolean;
  logger: Logger;
  logBuffer?: LogBuffer;
  /** Called when a run is over (the approval broker forgets its "rest of run" grant). */
  onRunEnd?(runId: string): void;
  /** The approval broker, for runs that outlive their tool call (held runs). */
  approvals?: HeldApprovals;
  /** How long a call waits for a person before it is answered "held" (0: as long as the approval); read at each call. */
  replyAfterMs?: () => number;
  /** Where runs are counted by outcome, and whose request span a run's calls hang under (telemetry on). */
  telemetry?: Telemetry;
}

export interface ExecuteService {
  execute(code: string, caller: CallerInfo, options?: RunOptions): Promise<ExecuteOutcome>;
  /** Follows a held run again: its final result, or "held" again by the same rule. */
  resume(id: string, caller: CallerInfo, options?: RunOptions): Promise<ExecuteOutcome>;
  /** A client session ended: requests its runs wait on say the client stopped waiting. */
  callerGone(callerKey: string): void;
  /** The kill switch went on: every run still going stops (a run waiting for a person has its request withdrawn). */
  stopAll(reason: string): number;
}

/** Why a run's signal fires once the run is over: one shared reason, not a new DOMException per run. */
const RUN_OVER = new DOMException('the run is over', 'AbortError');

const LEVELS: Record<ConsoleEntry['level'], LogLevel> = { log: 'info', info: 'info', debug: 'debug', warn: 'warn', error: 'error' };

/** How a client's run is run: its cancellation, how to ask its person, and how to tell it that the run waits for a person. */
export interface RunOptions {
  signal?: AbortSignal;
  /** Overrides the service's replyAfterMs for this call (a task: 0, never "held"). */
  replyAfterMs?: number;
  elicit?: Elicit;
  onWaiting?: (what: string) => () => void;
  /** The APIs the session may reach (absent: every API served). */
  scope?: readonly string[];
  /** The API the session began with when it reached only that one: `api` keeps naming it (see runClient). */
  defaultApi?: string;
}

export function createExecuteService(options: ExecuteServiceOptions): ExecuteService {
  const log = options.logger.child('execute');

  const held = new HeldRuns<ExecuteOutcome>({
    ...(options.approvals ? { approvals: options.approvals } : {}),
    failed: (error) => notRun('', 'internal', `internal: the run failed: ${messageOf(error)}`),
  });

  async function execute(code: string, caller: CallerInfo, runOptions: RunOptions = {}): Promise<ExecuteOutcome> {
    const { signal, elicit } = runOptions;
    const runId = randomUUID();
    const scriptSha256 = createHash('sha256')
      .update(code ?? '')
      .digest('hex');
    const started = performance.now();
    // The MCP request this run serves (its span), captured now: the run's calls come back on other paths.
    const trace = options.telemetry?.current();
    const base = { runId, scriptSha256, apiCalls: 0, truncated: false };
    const fail = (outcome: ExecuteOutcome['outcome'], text: string): ExecuteOutcome => ({
      ...base,
      isError: true,
      outcome,
      text,
      durationMs: performance.now() - started,
      bytesOut: Buffer.byteLength(text),
    });

    if (typeof code !== 'string' || code.trim() === '')
      return fail('invalid', 'code is empty: pass the body of an async function that returns a value, e.g. `return 1 + 1`');
    if (Buffer.byteLength(code) > MAX_CODE_BYTES) return fail('invalid', `code is ${Buffer.byteLength(code)} bytes; the limit is ${MAX_CODE_BYTES}`);
    if (options.killSwitch()) {
      return fail('killed', 'execute is switched off by the person running Airlock (kill switch). search_docs still works; ask them to turn execute back on.');
    }
    const client = await options.client(runOptions.scope, runOptions.defaultApi ? { defaultApi: runOptions.defaultApi } : {});
    if (typeof client === 'string') return fail('invalid', client);
    const { manifest, gate } = client;
    let release: () => void;
    try {
      release = await options.caps.acquire(caller.key, signal);
    } catch (error) {
      return fail(error instanceof CapacityError ? 'capacity' : 'invalid', messageOf(error));
    }
    // The run has its own cancellation: it may outlive this call (held for a person), and a later call may follow it.
    const cancel = new AbortController();
    const ended = new AbortController();
    const onCancel = () => ended.abort(cancel.signal.reason);
    cancel.signal.addEventListener('abort', onCancel, { once: true });
    const live = held.add(runId, caller.key, (reason) => cancel.abort(reason));
    const run = async (): Promise<ExecuteOutcome> => {
      const limits = options.limits();
      let apiCalls = 0;
      const calls: RunCallSummary[] = [];
      try {
        const result = await options.engine.run({
          runId,
          code,
          client: manifest,
          limits,
          callApi: (request, control) => {
            apiCalls++;
            return gate.call(request, {
              runId,
              caller,
              scriptSha256,
              script: code,
              calls,
              control,
              signal: ended.signal,
              ...(elicit ? { elicit } : {}),
              onWaiting: (what) => live.waiting(what),
              ...(trace ? { trace } : {}),
            });
          },
          onConsole: (entry) => options.logBuffer?.append({ level: LEVELS[entry.level], source: 'sandbox', message: entry.text.slice(0, 4000), runId }),
          signal: cancel.signal,
        });
        const redact = await gate.redactor();
        // Stopped by Airlock (the kill switch), not by its client: say why.
        const why = cancel.signal.reason;
        if (!result.ok && result.error.kind === 'aborted' && typeof why === 'string') result.error.message = `stopped: ${why}`;
        const formatted = formatOutcome(result, limits.outputBytes);
        const text = redact(formatted.text);
        log.debug(`run ${runId.slice(0, 8)} ${result.ok ? 'ok' : result.error.kind} in ${result.durationMs.toFixed(1)} ms, ${apiCalls} API call(s)`, { runId });
        options.telemetry?.run(result.ok ? 'ok' : result.error.kind);
        return {
          ...base,
          apiCalls,
          isError: !result.ok,
          outcome: result.ok ? 'ok' : result.error.kind,
          text,
          truncated: formatted.truncated,
          durationMs: performance.now() - started,
          bytesOut: Buffer.byteLength(text),
        };
      } catch (error) {
        log.error(`run ${runId.slice(0, 8)}: the engine failed: ${messageOf(error)}`);
        options.telemetry?.run('internal');
        return fail('internal', `internal: the sandbox engine failed: ${messageOf(error)}`);
      } finally {
        options.onRunEnd?.(runId);
        ended.abort(RUN_OVER);
        cancel.signal.removeEventListener('abort', onCancel);
        release();
      }
    };
    held.settle(live, run());
    return follow(live.runId, caller.key, runOptions);
  }

  async function follow(runId: string, callerKey: string, runOptions: RunOptions): Promise<ExecuteOutcome> {
    const live = held.get(runId)!;
    const followed = await held.follow(live, {
      replyAfterMs: runOptions.replyAfterMs ?? options.replyAfterMs?.() ?? 0,
      callerKey,
      ...(runOptions.signal ? { signal: runOptions.signal } : {}),
      ...(runOptions.onWaiting ? { onWaiting: runOptions.onWaiting } : {}),
    });
    if (followed.kind === 'done') return followed.outcome;
    if (followed.kind === 'left') {
      return notRun(runId, 'aborted', `stopped following run ${runId}: it goes on for the session that started it`);
    }
    return heldOutcome(runId, followed.pending);
  }

  async function resume(id: string, caller: CallerInfo, runOptions: RunOptions = {}): Promise<ExecuteOutcome> {
    const live = typeof id === 'string' ? held.get(id.trim()) : undefined;
    if (options.killSwitch()) {
      return notRun(
        String(id).slice(0, 100),
        'killed',
        'execute is switched off by the person running Airlock (kill switch): runs still going were stopped, and none can be resumed.',
      );
    }
    // A held run's id is a handle for the session that started it (its stdio pipe or HTTP session), never a capability:
    // another that presents it is told what it would be told of a run that never was, and the attempt is logged (its
    // execute call is in the audit too, with this outcome).
    const foreign = live !== undefined && live.callerKey !== caller.key;
    if (foreign) log.warn(`run ${live.runId.slice(0, 8)}: a resume from another session (${caller.clientName ?? caller.key}) refused as no such run`);
    if (!live || foreign) {
      return notRun(
        String(id).slice(0, 100),
        'invalid',
        `no run ${JSON.stringify(String(id).slice(0, 100))} to resume: a held run's result is kept ${Math.round(KEEP_FINISHED_MS / 60_000)} minutes after it finishes, for the session that started it, and none survives a restart of Airlock. Run the code again if it is still needed.`,
      );
    }
    return follow(live.runId, caller.key, runOptions);
  }

  return { execute, resume, callerGone: (key) => held.callerGone(key), stopAll: (reason) => held.stopAll(reason) };
}

/** An answer that is not a run's: an error, about no run in particular (or the one named). */
function notRun(runId: string, outcome: ExecuteOutcome['outcome'], text: string): ExecuteOutcome {
  return { runId, scriptSha256: '', apiCalls: 0, truncated: false, isError: true, outcome, text, durationMs: 0, bytesOut: Buffer.byteLength(text) };
}

/** The answer to a call whose run waits for a person: nothing has been sent; how to continue. */
export function heldOutcome(runId: string, pending: PendingApproval): ExecuteOutcome {
  const req = pending.request;
  const operation = requestLine(req);
  const until = pending.expiresAt.replace(/\.\d+Z$/, 'Z');
  const gone = pending.clientStoppedWaitingAt ? ' (the prompt says this client stopped waiting; a person can still decide)' : '';
  const text = [
    `Held: ${operation} waits for a person to approve it in Airlock${gone}. Nothing has been sent yet.`,
    `The approval is open until ${until}; no answer by then is a denial.`,
    `To continue, call execute with {"resume": "${runId}"}: it waits again and returns this run's final result once the person decides. Do not run the code again: that would ask a second time.`,
  ].join('\n');
  return {
    runId,
    scriptSha256: '',
    apiCalls: 0,
    truncated: false,
    isError: false,
    outcome: 'held',
    text,
    durationMs: 0,
    bytesOut: Buffer.byteLength(text),
    held: { id: runId, operation, expiresAt: pending.expiresAt },
  };
}

function consoleBlock(entries: ConsoleEntry[], truncated: boolean): string {
  if (entries.length === 0 && !truncated) return '';
  const lines = entries.map((e) => (e.level === 'log' || e.level === 'info' ? e.text : `[${e.level}] ${e.text}`));
  return `\n\nConsole:\n${lines.join('\n')}${truncated ? '\n…[console truncated]' : ''}`;
}

export function formatOutcome(result: RunOutcome, maxBytes: number): { text: string; truncated: boolean } {
  let body: string;
  if (result.ok) {
    if (typeof result.value === 'string') body = result.value;
    else if (result.value === undefined) body = '(no return value: end the code with `return …`)';
    else body = JSON.stringify(result.value, null, 2) ?? String(result.value);
  } else {
    body = `${result.error.kind === 'runtime' || result.error.kind === 'syntax' ? '' : `${result.error.kind}: `}${result.error.message}${result.error.stack ? `\n${result.error.stack}` : ''}`;
  }
  const full = body + consoleBlock(result.console, result.consoleTruncated);
  const size = Buffer.byteLength(full);
  if (size <= maxBytes) return { text: full, truncated: false };
  const marker = `\n…[truncated: ${maxBytes} of ${size} bytes shown; return less data, e.g. pick fields or paginate]`;
  const keep = Buffer.from(full)
    .subarray(0, Math.max(0, maxBytes - Buffer.byteLength(marker)))
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return { text: keep + marker, truncated: true };
}
