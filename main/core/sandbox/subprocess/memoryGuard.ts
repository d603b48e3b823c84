// The memory cap of a subprocess run once it is running (Linux): finding
// the run's processes, measuring them before the code starts, lowering the
// runtime's RLIMIT_DATA to what the budget allows (prlimit --pid), and a
// watchdog on the runtime's RSS. See limits.ts for why and how much.
//
// The run is the runtime process, found among the spawned process and its
// descendants through /proc (parent ids): under the srt wrapper those are a
// shell, srt's own Node process, socat and bubblewrap — the sandbox's fixed
// cost (~120 MB), not charged to the run's cap — and the runtime inside
// bubblewrap's PID namespace (whose own idea of its pid differs; /proc on
// the host shows it with its host pid). The runtime is the one whose
// command line is exactly the one the engine built.
//
// The rlimit is the bound: the kernel refuses a mapping past it, so the
// runtime gets an allocation failure (a RangeError, or V8's out-of-memory)
// however fast it allocates. The watchdog is defence in depth for what the
// rlimit does not see (see limits.ts): sampling every 10 ms, it ends the run
// (SIGKILL to the runtime and the group) when the runtime's RSS crosses its
// line. A 10 ms sampler alone could be outrun; it is not the primary bound.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Logger } from '../../log/logger.ts';
import { dataBudget, type RunMemoryBudget, type SubprocessLimits } from './limits.ts';

/** The watchdog's sampling period: the runtime's RSS each tick. */
export const WATCH_INTERVAL_MS = 10;
/** Whether the kernel lists a task's children (/proc/<pid>/task/<tid>/children): a few reads instead of every process's parent. */
let childrenFiles: boolean | undefined;
function hasChildrenFiles(): boolean {
  childrenFiles ??= existsSync(`/proc/self/task/${process.pid}/children`);
  return childrenFiles;
}

export interface ProcessMemory {
  rssBytes: number;
  dataBytes: number;
}

/** VmRSS and VmData of a live process, or undefined when it is gone. */
export function processMemory(pid: number): ProcessMemory | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return undefined;
  }
  const field = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : 0;
  };
  return { rssBytes: field('VmRSS'), dataBytes: field('VmData') };
}

function parentOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1').split(' ')) if (child) out.push(Number(child));
    } catch {
      // The thread is gone.
    }
  }
  return out;
}

/** `root` and every live descendant, root first. */
export function descendants(root: number): number[] {
  if (hasChildrenFiles()) {
    const out: number[] = [];
    const queue = [root];
    const seen = new Set<number>();
    while (queue.length > 0 && out.length < 10_000) {
      const pid = queue.shift()!;
      if (seen.has(pid)) continue;
      seen.add(pid);
      out.push(pid);
      queue.push(...childrenOf(pid));
    }
    return out;
  }
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [root];
  }
  for (const name of entries) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const ppid = parentOf(name);
    if (ppid === undefined) continue;
    const list = children.get(ppid);
    if (list) list.push(Number(name));
    else children.set(ppid, [Number(name)]);
  }
  const out: number[] = [];
  const queue = [root];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

function cmdlineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The process among `pids` whose command line is exactly `argv`; failing
 * that (a runtime that rewrote its argv), the only one started from the same
 * binary that has no children among them.
 */
export function findRuntime(pids: number[], argv: string[]): number | undefined {
  const wanted = argv.join('\0') + '\0';
  const lines = new Map(pids.map((pid) => [pid, cmdlineOf(pid)] as const));
  const exact = pids.find((pid) => lines.get(pid) === wanted);
  if (exact !== undefined) return exact;
  const parents = new Set(pids.map((pid) => parentOf(String(pid))));
  const sameBinary = pids.filter((pid) => lines.get(pid)?.startsWith(argv[0] + '\0') && !parents.has(pid));
  return sameBinary.length === 1 ? sameBinary[0] : undefined;
}

/** Sets a live process's RLIMIT_DATA (soft and hard) with `prlimit --pid`. */
export function setDataLimit(prlimit: string, pid: number, bytes: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(prlimit, ['--pid', String(pid), `--data=${bytes}:${bytes}`], { stdio: ['ignore', 'ignore', 'pipe'], env: {} });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < 2000) stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`prlimit --pid ${pid} exited with ${code}: ${stderr.trim()}`))));
  });
}

export interface MemoryGuardOptions {
  /** The spawned process (the root of the run's tree). */
  rootPid: number;
  /** The runtime's command line as it runs (after the exec chain of setpriv, prlimit, env). */
  runtimeArgv: string[];
  limits: SubprocessLimits;
  /** `prlimit`, when the platform has it; without it there is only the watchdog. */
  prlimit: string | undefined;
  log: Logger;
  /** The watchdog saw the tree over its line: end the run. */
  onOver(rssBytes: number): void;
}

export interface GuardedRun extends RunMemoryBudget {
  runtimePid: number;
  /** RSS of the run's processes when the code was about to start. */
  readyRssBytes: number;
  /** The runtime's RLIMIT_DATA from now on (undefined without prlimit). */
  dataLimitBytes?: number;
}

/**
 * One run's guard: `arm()` once the prelude is ready (before the code runs),
 * `stop()` when the run is over.
 */
export class MemoryGuard {
  readonly #o: MemoryGuardOptions;
  #timer: NodeJS.Timeout | undefined;
  #run: GuardedRun | undefined;
  #peakRss = 0;
  #peakData = 0;
  #stopped = false;

  constructor(options: MemoryGuardOptions) {
    this.#o = options;
  }

  /** Measures the run's processes, lowers the runtime's data cap, starts the watchdog. Throws when the runtime cannot be found or capped. */
  async arm(): Promise<GuardedRun> {
    const { rootPid, runtimeArgv, limits, prlimit } = this.#o;
    // Without a wrapper the spawned process is the runtime (setpriv and prlimit exec it), and it cannot start others.
    const tree = findRuntime([rootPid], runtimeArgv) === rootPid ? [rootPid] : descendants(rootPid);
    const runtimePid = findRuntime(tree, runtimeArgv);
    if (runtimePid === undefined) throw new Error(`the runtime process was not found among the run's processes (${tree.length})`);
    const runtime = processMemory(runtimePid);
    if (!runtime) throw new Error('the runtime process is gone');
    // The run is the runtime: under srt, the wrapper's own processes (srt's Node, socat, bubblewrap: a fixed
    // ~120 MB) are the sandbox's, not what the run allocates, and are not charged to its cap.
    const readyRssBytes = runtime.rssBytes;
    const budget = dataBudget(limits, readyRssBytes);
    let dataLimitBytes: number | undefined;
    if (prlimit) {
      dataLimitBytes = runtime.dataBytes + budget.dataBudgetBytes;
      await setDataLimit(prlimit, runtimePid, dataLimitBytes);
    }
    this.#run = { runtimePid, readyRssBytes, ...budget, ...(dataLimitBytes === undefined ? {} : { dataLimitBytes }) };
    if (!this.#stopped) {
      this.#timer = setInterval(() => this.#sample(), WATCH_INTERVAL_MS);
      this.#timer.unref();
    }
    return this.#run;
  }

  /** Most RSS the watchdog saw for the run's processes, and most VmData for the runtime. */
  get peaks(): { rssBytes: number; dataBytes: number } {
    return { rssBytes: this.#peakRss, dataBytes: this.#peakData };
  }

  /** The runtime came within reach of its data cap (an allocation there can fail anywhere, also as a crash). */
  nearDataCap(): boolean {
    const run = this.#run;
    if (!run?.dataLimitBytes) return false;
    const margin = Math.min(32 * 1024 * 1024, run.dataBudgetBytes / 2);
    return this.#peakData >= run.dataLimitBytes - margin;
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #sample(): void {
    const run = this.#run;
    if (!run || this.#stopped) return;
    const runtime = processMemory(run.runtimePid);
    if (!runtime) return this.stop();
    const rss = runtime.rssBytes;
    if (rss > this.#peakRss) this.#peakRss = rss;
    if (runtime.dataBytes > this.#peakData) this.#peakData = runtime.dataBytes;
    if (rss > run.watchBytes) {
      this.stop();
      try {
        process.kill(run.runtimePid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      this.#o.log.warn(`run over its memory line: ${Math.round(rss / 1048576)} MB of RSS (line ${Math.round(run.watchBytes / 1048576)} MB); killed`);
      this.#o.onOver(rss);
    }
  }
}
