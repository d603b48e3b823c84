// npm run bench:search — search_docs quality and speed on real documents.
// For each evaluation set: top-1 and top-3 accuracy, answer size (bytes of the
// text search_docs returns) and latency (search + render), plus the time to
// load and index the document. Prints a table and the misses.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadApiDocument } from '../main/core/openapi/loadDocument.ts';
import { buildCatalogue } from '../main/core/openapi/catalogue.ts';
import { OperationSearch } from '../main/core/search/operationSearch.ts';
import { renderSearchResults } from '../main/core/search/renderResults.ts';
import { tmpdir } from 'node:os';

interface EvalSet {
  spec: string;
  alias?: string;
  queries: { q: string; expect: string | string[] }[];
}

const root = resolve(import.meta.dirname, '..');
const sets = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['openagenda', 'github'];
const REPEAT = 30;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

let failed = false;
for (const name of sets) {
  const set = JSON.parse(readFileSync(join(import.meta.dirname, 'search-eval', `${name}.json`), 'utf8')) as EvalSet;
  const cacheDir = mkdtempSync(join(tmpdir(), 'airlock-bench-cache-'));
  const t0 = performance.now();
  const loaded = await loadApiDocument(resolve(root, set.spec), { cacheDir });
  const catalogue = buildCatalogue(loaded.document, loaded.refNames);
  const search = new OperationSearch(catalogue);
  const readyMs = performance.now() - t0;
  // A later start finds a YAML document's parse in the cache.
  const t1 = performance.now();
  const again = await loadApiDocument(resolve(root, set.spec), { cacheDir });
  new OperationSearch(buildCatalogue(again.document, again.refNames));
  const warmMs = performance.now() - t1;
  rmSync(cacheDir, { recursive: true, force: true });

  let top1 = 0;
  let top3 = 0;
  const sizes: number[] = [];
  const latencies: number[] = [];
  const misses: string[] = [];
  for (const { q, expect } of set.queries) {
    const wanted = new Set(Array.isArray(expect) ? expect : [expect]);
    const hits = search.search(q, 8);
    const text = renderSearchResults(q, hits, catalogue, set.alias ? { alias: set.alias } : {});
    sizes.push(Buffer.byteLength(text));
    const rank = hits.findIndex((h) => wanted.has(h.op.id));
    if (rank === 0) top1++;
    if (rank >= 0 && rank < 3) top3++;
    if (rank !== 0)
      misses.push(
        `  ${rank < 0 ? 'miss' : `#${rank + 1}`}  "${q}" → ${hits
          .slice(0, 3)
          .map((h) => h.op.id)
          .join(', ')} (want ${[...wanted].join(' | ')})`,
      );
  }
  for (let r = 0; r < REPEAT; r++) {
    for (const { q } of set.queries) {
      const t = performance.now();
      renderSearchResults(q, search.search(q, 8), catalogue, set.alias ? { alias: set.alias } : {});
      latencies.push(performance.now() - t);
    }
  }
  const n = set.queries.length;
  const pct = (x: number) => `${((100 * x) / n).toFixed(1)} %`;
  console.log(`\n${name}: ${catalogue.title} — ${catalogue.operations.length} operations, ${n} queries`);
  console.log(`  load + index      ${readyMs.toFixed(0)} ms first start (document ${loaded.loadMs.toFixed(0)} ms), ${warmMs.toFixed(0)} ms later starts`);
  console.log(`  top-1             ${pct(top1)} (${top1}/${n})`);
  console.log(`  top-3             ${pct(top3)} (${top3}/${n})`);
  console.log(`  answer size       median ${(percentile(sizes, 50) / 1024).toFixed(1)} KB, max ${(Math.max(...sizes) / 1024).toFixed(1)} KB`);
  console.log(
    `  latency           p50 ${percentile(latencies, 50).toFixed(2)} ms, p95 ${percentile(latencies, 95).toFixed(2)} ms (search + render, ${REPEAT}× each query)`,
  );
  if (misses.length > 0) console.log(`  not first:\n${misses.join('\n')}`);
  if (name === 'openagenda' && (top1 / n < 0.9 || top3 / n < 0.98)) failed = true;
  if (name === 'github' && top3 / n < 0.9) failed = true;
}
if (failed) {
  console.log('\nBelow target (openagenda top-1 ≥ 90 %, top-3 ≥ 98 %; github top-3 ≥ 90 %).');
  process.exitCode = 1;
}
