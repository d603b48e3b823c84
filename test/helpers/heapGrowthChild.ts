// Run by test/unit/heapTuning.test.ts in a process of its own: a live heap of small objects (what a served API's
// catalogue and index are), then 800 MB of garbage in 1 MB arrays; prints how many full collections that cost.
//   node heapGrowthChild.ts tuned|size-only
import v8 from 'node:v8';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { tuneHeapForServing } from '../../main/core/runtime/heapTuning.ts';

const live: object[] = [];
for (let i = 0; i < 400_000; i++) live.push({ id: i, name: `operation ${i}`, tags: [i] });
if (process.argv[2] === 'tuned') tuneHeapForServing();
else v8.setFlagsFromString('--optimize-for-size');
let major = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if ((entry as unknown as { detail: { kind: number } }).detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major++;
});
observer.observe({ entryTypes: ['gc'] });
let last: number[] = [];
for (let i = 0; i < 800; i++) last = new Array<number>(131_072).fill(i);
// GC entries are delivered on a later turn of the event loop.
await new Promise((resolve) => setImmediate(resolve));
await new Promise((resolve) => setImmediate(resolve));
observer.disconnect();
process.stdout.write(JSON.stringify({ major, kept: live.length + last.length }));
