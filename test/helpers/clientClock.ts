// An MCP client's clock, for the calls of one test: the timers the SDK sets
// for a call's timeout (a setTimeout of exactly that many ms, set when the
// request is sent and set again on each progress notification when the call
// resets its timeout on progress) run on a clock the test moves, so a call's
// deadline passes only when the test says so, whatever the load of the
// machine. Every other timer keeps real time (sockets, streams, helpers'
// deadlines), and so does the server, another process.
type Fake = { fn: (...args: unknown[]) => void; args: unknown[]; dueAt: number; cleared: boolean };

export interface ClientClock {
  /** Ms the clock has moved since it was turned on. */
  readonly now: number;
  /** How many times a timer of the call's timeout was set. */
  readonly deadlines: number;
  /** When the last of them is due, on this clock. */
  readonly dueAt: number;
  /** Resolves once `count` deadlines in all were set. */
  deadlineSet(count: number): Promise<void>;
  /** Moves the clock on, running the deadlines that fall due. */
  tick(ms: number): void;
  /** Moves the clock to 1 ms before the last deadline set (a client that waited as long as it would). */
  toJustBeforeDeadline(): void;
  /** Real timers again, for every delay. */
  off(): void;
}

export function clientClock(timeoutMs: number): ClientClock {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const fakes = new Set<Fake>();
  let now = 0;
  let dueAt = 0;
  let deadlines = 0;
  const waiting: (() => void)[] = [];
  globalThis.setTimeout = ((fn: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) => {
    if (delay !== timeoutMs) return realSet(fn, delay, ...args);
    const fake: Fake = { fn, args, dueAt: now + timeoutMs, cleared: false };
    fakes.add(fake);
    deadlines++;
    dueAt = fake.dueAt;
    for (const wake of waiting.splice(0)) wake();
    // What a timer handle offers; the SDK only passes it back to clearTimeout.
    return Object.assign(fake, { ref: () => fake, unref: () => fake, hasRef: () => false, refresh: () => fake });
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((handle: unknown) => {
    if (handle && fakes.has(handle as Fake)) {
      (handle as Fake).cleared = true;
      fakes.delete(handle as Fake);
    } else realClear(handle as Parameters<typeof clearTimeout>[0]);
  }) as typeof clearTimeout;
  const clock: ClientClock = {
    get now() {
      return now;
    },
    get deadlines() {
      return deadlines;
    },
    get dueAt() {
      return dueAt;
    },
    async deadlineSet(count) {
      while (deadlines < count) await new Promise<void>((wake) => waiting.push(wake));
    },
    tick(ms) {
      now += ms;
      for (const fake of [...fakes].sort((a, b) => a.dueAt - b.dueAt)) {
        if (fake.dueAt > now || fake.cleared) continue;
        fakes.delete(fake);
        fake.fn(...fake.args);
      }
    },
    toJustBeforeDeadline() {
      if (dueAt - now > 1) clock.tick(dueAt - now - 1);
    },
    off() {
      globalThis.setTimeout = realSet;
      globalThis.clearTimeout = realClear;
      fakes.clear();
    },
  };
  return clock;
}

/** One turn of the event loop: what a deadline that fell due has settled by then. */
export const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs a call whose client resets its idle limit on each progress message, on the client's own clock: whenever
 * the call sets its deadline again (or a message arrives), the clock moves to 1 ms before that deadline, so the
 * client waits exactly as long as it would without the next message, however loaded the machine. `start` starts
 * the call and is given `told`, to call from its progress callback; `afterEach` runs after each move (where the
 * test decides, once enough messages came). Resolves with the call's result.
 */
export async function waitOnClientClock<T>(clock: ClientClock, start: (told: () => void) => Promise<T>, afterEach: () => void): Promise<T> {
  let done = false;
  let toldAgain: (() => void) | undefined;
  const call = start(() => toldAgain?.()).finally(() => (done = true));
  for (let seen = 1; !done; seen = clock.deadlines + 1) {
    await Promise.race([clock.deadlineSet(seen), new Promise<void>((r) => (toldAgain = r)), call.catch(() => undefined)]);
    clock.toJustBeforeDeadline();
    afterEach();
  }
  return call;
}

/** How a progress-keeping call is made (the same in both SDK lines): its idle limit, reset by each message. */
export interface ProgressCallOptions {
  timeout: number;
  resetTimeoutOnProgress: true;
  maxTotalTimeout: number;
  onprogress: (progress: { message?: string }) => void;
}

/**
 * A call that waits for a person, made by a client whose idle limit is `idleMs`, reset by each progress message, on
 * the client's own clock (waitOnClientClock): `approve` runs once the client was told three times. Resolves with the
 * call's result, every message it was told, and how far the client's clock moved; real timers are back after.
 */
export async function heldCallWithProgress<T>(
  idleMs: number,
  call: (options: ProgressCallOptions) => Promise<T>,
  approve: () => Promise<unknown>,
): Promise<{ result: T; messages: string[]; waitedMs: number }> {
  const clock = clientClock(idleMs);
  const messages: string[] = [];
  let decided: Promise<unknown> | undefined;
  try {
    const result = await waitOnClientClock(
      clock,
      (told) =>
        call({
          timeout: idleMs,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: 80_000,
          onprogress: (progress) => {
            messages.push(progress.message ?? '');
            told();
          },
        }),
      () => {
        if (messages.length >= 3 && !decided) decided = approve();
      },
    );
    await decided;
    return { result, messages, waitedMs: clock.now };
  } finally {
    clock.off();
  }
}
