// Samples the RSS of every process this test process has started (its
// descendants, through /proc; or this process too, for QuickJS, whose runs
// are threads of it), every 10 ms, from a worker thread so the
// samples keep coming while the main thread is busy with the engine. The
// figure is the plain sum of VmRSS over the processes: shared pages (the
// runtime binary, libc) count once per process, as `ps` or `top` would
// show them. Linux only (/proc).
import { Worker } from 'node:worker_threads';
import { within } from './subprocessHarness.ts';

export interface TreeMemory {
  /** The most RSS the descendants held together at one sample, in bytes. */
  maxBytes: number;
  /** Samples taken. */
  samples: number;
  /** The longest time between two samples (how closely the run was watched), in ms. */
  longestGapMs: number;
  /** The most processes seen at one sample. */
  maxProcesses: number;
}

// Plain JavaScript: the worker runs it as is. Parent ids are read once per new
// process (a pid that leaves /proc is forgotten), so a sample costs one
// directory listing plus one status read per process of the tree.
const WORKER_SOURCE = String.raw`
const { workerData, parentPort } = require('node:worker_threads');
const { readdirSync, readFileSync } = require('node:fs');
const { root, intervalMs, stop, includeRoot, runtimeOnly } = workerData;
// Only a yes is remembered: a process seen between its fork and its exec still shows its parent's command line, and
// a no kept from then would leave the runtime it becomes unwatched for its whole life.
const runtimes = new Set();
function isRuntime(pid) {
  if (runtimes.has(pid)) return true;
  let second = '';
  try {
    second = readFileSync('/proc/' + pid + '/cmdline', 'latin1').split('\0')[1] || '';
  } catch {}
  if (second !== '--permission' && second !== 'run') return false;
  runtimes.add(pid);
  return true;
}
const flag = new Int32Array(stop);
const parents = new Map();
function parentOf(pid) {
  try {
    const stat = readFileSync('/proc/' + pid + '/stat', 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}
function rssOf(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync('/proc/' + pid + '/status', 'latin1'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
let maxBytes = 0, samples = 0, longestGapMs = 0, maxProcesses = 0, last = 0;
while (Atomics.load(flag, 0) === 0) {
  const now = performance.now();
  if (last) longestGapMs = Math.max(longestGapMs, now - last);
  last = now;
  const live = new Set();
  for (const name of readdirSync('/proc')) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const pid = Number(name);
    live.add(pid);
    if (!parents.has(pid)) parents.set(pid, parentOf(pid));
  }
  for (const pid of parents.keys()) if (!live.has(pid)) (parents.delete(pid), runtimes.delete(pid));
  const children = new Map();
  for (const [pid, ppid] of parents) {
    if (ppid === undefined) continue;
    let list = children.get(ppid);
    if (!list) children.set(ppid, (list = []));
    list.push(pid);
  }
  let sum = 0, count = 0;
  const queue = includeRoot ? [root] : [...(children.get(root) || [])];
  while (queue.length) {
    const pid = queue.pop();
    if (!runtimeOnly || isRuntime(pid)) {
      sum += rssOf(pid);
      count++;
    }
    for (const child of children.get(pid) || []) queue.push(child);
  }
  samples++;
  if (samples === 1) parentPort.postMessage('watching');
  if (sum > maxBytes) maxBytes = sum;
  if (count > maxProcesses) maxProcesses = count;
  const spent = performance.now() - now;
  if (spent < intervalMs) Atomics.wait(flag, 0, 0, intervalMs - spent);
}
parentPort.postMessage({ maxBytes, samples, longestGapMs, maxProcesses });
`;

export interface TreeSampler {
  /** Settles once the first sample is taken: a run started after it is watched from its first moment, however late
   * a loaded machine starts the sampler's thread. */
  watching(): Promise<void>;
  /** Stops sampling and says what it saw. */
  stop(): Promise<TreeMemory>;
}

/**
 * Starts sampling the descendants of `root` (default: this process; with `includeRoot`, it too) every
 * `intervalMs`; with `runtimeOnly`, only the Node or Deno runtimes among them (`node --permission …`,
 * `deno run …`), leaving out the srt wrapper's own processes.
 */
export function sampleTreeMemory(options: { root?: number; intervalMs?: number; includeRoot?: boolean; runtimeOnly?: boolean } = {}): TreeSampler {
  const stop = new SharedArrayBuffer(4);
  const workerData = {
    root: options.root ?? process.pid,
    intervalMs: options.intervalMs ?? 10,
    includeRoot: options.includeRoot ?? false,
    runtimeOnly: options.runtimeOnly ?? false,
    stop,
  };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  let watching!: () => void;
  const started = new Promise<void>((resolve) => (watching = resolve));
  const result = new Promise<TreeMemory>((resolve, reject) => {
    worker.on('message', (m: TreeMemory | 'watching') => (m === 'watching' ? watching() : resolve(m)));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the memory sampler exited (${code}) without a result`)));
  });
  return {
    watching: () => within(Promise.race([started, result.then(() => undefined)]), 'the memory sampler watching'),
    stop: async () => {
      Atomics.store(new Int32Array(stop), 0, 1);
      Atomics.notify(new Int32Array(stop), 0);
      return within(result, 'result from the memory sampler');
    },
  };
}
