// Runs that outlive the tool call that started them. A person may take
// minutes over an approval; a client may give up long before (Claude Desktop
// at about 60 s). So a call that waits for a person is answered "held" after
// `approvalReplyAfterMs` — nothing has been sent — and the run stays paused
// at that call until the person decides or the approval times out.
// `execute {resume: id}` follows the run again, by the same rule, and gets
// its final result. A client that cancels while its run waits for a person,
// or goes away, does not withdraw the request: the prompt says the client
// stopped waiting, and the person can still decide it.
import type { PendingApproval } from '../../../contract/approvals.ts';

/** What the held-run registry needs of the approval broker. */
export interface HeldApprovals {
  /** The request the run waits on, if any. */
  pendingFor(runId: string): PendingApproval | undefined;
  /** Marks the run's request: its client stopped waiting (and whether it holds the run's id, to resume it). */
  clientStoppedWaiting(runId: string, canResume: boolean): void;
  /** Broker events; only their run ids matter here. */
  subscribe(listener: (e: { type: string; approval?: PendingApproval; request?: { runId: string } }) => void): () => void;
}

/** How one tool call follows a run. */
export interface FollowOptions {
  /** The tool call's cancellation (the client cancelled, or went away). */
  signal?: AbortSignal;
  /** Answer "held" once this long has passed while the run waits for a person (0: never). */
  replyAfterMs: number;
  /** Who follows: only the session that started the run can cancel it by cancelling its call. */
  callerKey?: string;
  /** Tells the client, while the run waits for a person, that it does (progress notifications); returns how to stop. */
  onWaiting?: (message: string) => () => void;
}

/** done: the run's outcome; held: it waits for a person; left: another session stopped following it (the run goes on). */
export type Followed<T> = { kind: 'done'; outcome: T } | { kind: 'held'; pending: PendingApproval } | { kind: 'left' };

/** A run in flight, or finished and kept for a `resume`. */
export class LiveRun<T> {
  readonly runId: string;
  readonly callerKey: string;
  outcome: T | undefined;
  /** What the run waits for, while it waits for a person. */
  waitingMessage: string | undefined;
  /** Whether some call was answered "held" (the outcome is then kept for a resume). */
  wasHeld = false;
  readonly abort: (reason: unknown) => void;
  private readonly listeners = new Set<() => void>();

  constructor(runId: string, callerKey: string, abort: (reason: unknown) => void) {
    this.runId = runId;
    this.callerKey = callerKey;
    this.abort = abort;
  }

  listen(l: () => void): () => void {
    this.listeners.add(l);
    return () => void this.listeners.delete(l);
  }

  changed(): void {
    for (const l of [...this.listeners]) l();
  }

  /** The gate's hook: the run waits for a person (until the returned function is called). */
  waiting(message: string): () => void {
    this.waitingMessage = message;
    this.changed();
    return () => {
      if (this.waitingMessage === message) this.waitingMessage = undefined;
      this.changed();
    };
  }
}

export interface HeldRunsOptions {
  approvals?: HeldApprovals;
  /** The outcome of a run that rejected instead of settling. */
  failed: (error: unknown) => unknown;
  /** How long a finished run that was answered "held" keeps its result for a resume. */
  keepMs?: number;
}

export const KEEP_FINISHED_MS = 15 * 60_000;

export class HeldRuns<T> {
  private readonly runs = new Map<string, LiveRun<T>>();
  private readonly approvals: HeldApprovals | undefined;
  private readonly keepMs: number;
  private readonly failed: (error: unknown) => T;

  constructor(options: HeldRunsOptions) {
    this.approvals = options.approvals;
    this.failed = options.failed as (error: unknown) => T;
    this.keepMs = options.keepMs ?? KEEP_FINISHED_MS;
    this.approvals?.subscribe((e) => {
      const runId = e.approval?.request.runId ?? e.request?.runId;
      if (runId) this.runs.get(runId)?.changed();
    });
  }

  /** Registers a run (before it starts, so its gate hooks can reach it). */
  add(runId: string, callerKey: string, abort: (reason: unknown) => void): LiveRun<T> {
    const run = new LiveRun<T>(runId, callerKey, abort);
    this.runs.set(runId, run);
    return run;
  }

  /** The run's outcome, once settled: kept for a resume only if some call was answered "held". */
  settle(run: LiveRun<T>, settled: Promise<T>): void {
    const done = (outcome: T) => {
      run.outcome = outcome;
      run.waitingMessage = undefined;
      run.changed();
      if (!run.wasHeld) this.runs.delete(run.runId);
      else setTimeout(() => this.runs.delete(run.runId), this.keepMs).unref?.();
    };
    // A run that fails outright still ends for whoever follows it.
    void settled.then(done, (error: unknown) => done(this.failed(error)));
  }

  get(runId: string): LiveRun<T> | undefined {
    return this.runs.get(runId);
  }

  /** Stops every run not yet over (the kill switch): a run waiting for a person has its request withdrawn. Returns how many. */
  stopAll(reason: string): number {
    let n = 0;
    for (const run of this.runs.values()) {
      if (run.outcome !== undefined) continue;
      run.abort(reason);
      n++;
    }
    return n;
  }

  /** A client session ended: the requests its runs wait on say so. */
  callerGone(callerKey: string): void {
    for (const run of this.runs.values())
      if (run.callerKey === callerKey && run.outcome === undefined) this.approvals?.clientStoppedWaiting(run.runId, run.wasHeld);
  }

  /**
   * Follows a run for one tool call: its outcome when it finishes, or "held"
   * once `replyAfterMs` has passed while it waits for a person. A cancelled
   * call leaves a run that waits for a person waiting (its request says the
   * client stopped waiting); any other run is cancelled with it.
   */
  follow(run: LiveRun<T>, options: FollowOptions): Promise<Followed<T>> {
    if (run.outcome !== undefined) return Promise.resolve({ kind: 'done', outcome: run.outcome });
    const { signal, replyAfterMs, onWaiting } = options;
    const started = Date.now();
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let stopTelling: (() => void) | undefined;
      let over = false;
      const finish = (f: Followed<T>) => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        stopTelling?.();
        unlisten();
        signal?.removeEventListener('abort', onAbort);
        if (f.kind === 'held') run.wasHeld = true;
        resolve(f);
      };
      const check = () => {
        if (over) return;
        if (run.outcome !== undefined) return finish({ kind: 'done', outcome: run.outcome });
        if (run.waitingMessage && onWaiting && !stopTelling) stopTelling = onWaiting(run.waitingMessage);
        if (!run.waitingMessage && stopTelling) {
          stopTelling();
          stopTelling = undefined;
        }
        if (replyAfterMs <= 0) return;
        const pending = this.approvals?.pendingFor(run.runId);
        if (!pending) return;
        const left = started + replyAfterMs - Date.now();
        if (left <= 0) return finish({ kind: 'held', pending });
        timer ??= setTimeout(() => {
          timer = undefined;
          check();
        }, left);
      };
      const onAbort = () => {
        const pending = this.approvals?.pendingFor(run.runId);
        if (pending) {
          this.approvals!.clientStoppedWaiting(run.runId, run.wasHeld);
          finish({ kind: 'held', pending: this.approvals!.pendingFor(run.runId) ?? pending });
        } else if (options.callerKey === undefined || options.callerKey === run.callerKey) run.abort(signal?.reason);
        else finish({ kind: 'left' });
      };
      const unlisten = run.listen(check);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }
}
