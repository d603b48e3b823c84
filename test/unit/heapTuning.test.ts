// The companion's heap tuning (runtime/heapTuning.ts): garbage costs full collections in proportion to what is
// promoted, not to how much is live, so a companion serving big APIs does not collect several times as often as
// one serving the demo. Counted (not timed) in a child process: the same live heap and the same garbage, under
// the companion's tuning and under --optimize-for-size alone (V8 then grows the old generation by 10 %).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const child = join(import.meta.dirname, '..', 'helpers', 'heapGrowthChild.ts');

async function fullCollections(mode: 'tuned' | 'size-only'): Promise<number> {
  // One collector thread: how many collections the garbage costs then depends on allocation alone, not on how fast
  // concurrent marking keeps up on a loaded machine.
  const { stdout } = await promisify(execFile)(process.execPath, ['--single-threaded-gc', child, mode], { timeout: 60_000 });
  return (JSON.parse(stdout) as { major: number }).major;
}

test('under the serving tuning, garbage past a large live heap costs a fraction of the full collections', { timeout: 120_000 }, async () => {
  const sizeOnly = await fullCollections('size-only');
  const tuned = await fullCollections('tuned');
  assert.ok(sizeOnly >= 5, `--optimize-for-size alone collected ${sizeOnly} times: the workload no longer fills the old generation`);
  assert.ok(tuned * 2 <= sizeOnly, `tuned: ${tuned} full collections, --optimize-for-size alone: ${sizeOnly}`);
});
