// A stdio MCP server's process: started in a process group of its own
// (POSIX), with the environment childEnvironment.ts built and nothing else;
// its stderr kept as lines (the last ones, for the reason a server failed)
// and handed to the log; stopped with its whole group — a server started
// through `npx` or a shell leaves no grandchild behind.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** How many stderr lines are kept for "failed, and the last lines it wrote". */
export const STDERR_TAIL_LINES = 20;
/** How long a server has to exit after SIGTERM before SIGKILL. */
export const STOP_GRACE_MS = 2000;

export interface ChildOptions {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  /** Each line the server writes to stderr (never stdout: that is the protocol). */
  onStderrLine?(line: string): void;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it could not be started (ENOENT…). */
  error?: Error;
}

export interface StartedChild {
  readonly process: ChildProcessWithoutNullStreams;
  /** The last lines of stderr, oldest first. */
  stderrTail(): string[];
  /** Settles when the process has exited (with its code or signal), or could not be started (`error`). */
  readonly exited: Promise<ChildExit>;
  /**
   * Settles once its exit is known and what it wrote last has been read (its pipes closed), or OUTPUT_GRACE_MS
   * after its exit when something it started still holds them: the reason a server died is in its last line.
   */
  readonly outputDone: Promise<void>;
  /** SIGTERM to the process group, SIGKILL after STOP_GRACE_MS; settles once it exited. */
  stop(): Promise<void>;
}

/** How long after its exit a server's last output is waited for when its pipes stay open. */
const OUTPUT_GRACE_MS = 1000;

/** Every server still running: killed with their groups when Airlock exits, however it exits. */
const live = new Set<() => void>();
let exitHook = false;

export function startChild(options: ChildOptions): StartedChild {
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const kill of live) kill();
    });
  }
  const posix = process.platform !== 'win32';
  const child = spawn(options.command, [...options.args], {
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group, so stop() reaches what it starts in turn.
    detached: posix,
    windowsHide: true,
  });
  const tail: string[] = [];
  let partial = '';
  const keep = (raw: string) => {
    const line = raw.replace(/\r$/, '').slice(0, 4096);
    tail.push(line);
    if (tail.length > STDERR_TAIL_LINES) tail.shift();
    options.onStderrLine?.(line);
  };
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    if (partial.length > 4096) {
      lines.push(partial);
      partial = '';
    }
    for (const raw of lines) keep(raw);
  });
  // A last line without a newline ("fatal: bad token" and exit) is kept too.
  child.stderr.once('end', () => {
    if (partial) keep(partial);
    partial = '';
  });
  // The group is signalled only while its number is ours: once the leader has exited, what is left of the group
  // is killed at once, and never again (the number may be a stranger's later).
  let groupDone = false;
  const signalGroup = (signal: NodeJS.Signals) => {
    if (groupDone) return;
    try {
      if (posix && child.pid !== undefined) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // Gone already.
    }
  };
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('exit', (code, signal) => {
      signalGroup('SIGKILL');
      groupDone = true;
      live.delete(killNow);
      resolve({ code, signal });
    });
    // A command that cannot be started (ENOENT) never exits: it errors.
    child.once('error', (error) => {
      groupDone = true;
      live.delete(killNow);
      resolve({ code: null, signal: null, error });
    });
  });
  const killNow = () => signalGroup('SIGKILL');
  live.add(killNow);
  const closed = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => resolve());
  });
  const outputDone = exited.then(() => {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([closed, new Promise<void>((r) => (timer = setTimeout(r, OUTPUT_GRACE_MS)))]).finally(() => clearTimeout(timer));
  });
  return {
    process: child,
    stderrTail: () => [...tail],
    exited,
    outputDone,
    async stop() {
      if (groupDone) return;
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
