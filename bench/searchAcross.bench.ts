// npm run bench:search-across — search_docs over several APIs at once, on
// the search evaluation's sets (bench/search-eval; OpenAgenda's when its
// contract is here), two questions of issue 19:
//
// 1. Are scores comparable across APIs? Every set's API is put in one scope
//    with all the others (GitHub's 1,223 operations, Stripe's 452, Box's…) and
//    each of its requests is searched across the scope, as search_docs does
//    for a session that reaches them all (searchAcross). Printed per set: top-1
//    and top-3 searched alone and across, and "buried": requests whose right
//    operation was in the top 3 alone and is not across.
// 2. Does the outline help where words cannot be guessed? A scripted "model"
//    reads the outline of the request's API (each group's name and one line),
//    picks the group sharing the most words with the request, and searches
//    inside it (the ranking of search_docs, kept to that group's operations).
//    Printed per held-out set: top-3 of the plain search, how often the picked
//    group holds the right operation, top-3 through the outline, and top-3 of
//    the two together (the outline tried when the plain search missed: what a
//    model that checks its results could reach).
//   node bench/searchAcross.bench.ts [--quiet]
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { loadApiDocument } from '../main/core/openapi/loadDocument.ts';
import { buildCatalogue, type Catalogue } from '../main/core/openapi/catalogue.ts';
import { OperationSearch } from '../main/core/search/operationSearch.ts';
import { searchAcross } from '../main/core/search/searchAcross.ts';
import { outlineOf, type OutlineGroup } from '../main/core/search/outline.ts';
import { terms } from '../main/core/search/textProcessing.ts';
import { DEMO_SPEC, OPENAGENDA_HOW, OPENAGENDA_SPEC } from '../test/helpers/paths.ts';

interface EvalSet {
  spec?: string;
  split?: string;
  queries: { q: string; expect: string | string[] }[];
}

interface Source {
  name: string;
  split: string;
  catalogue: Catalogue;
  search: OperationSearch;
  names: string[];
  queries: { q: string; wanted: Set<string> }[];
}

const root = resolve(import.meta.dirname, '..');
const evalDir = join(import.meta.dirname, 'search-eval');
const quiet = process.argv.includes('--quiet');
const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)} %`.padStart(8);

const sources: Source[] = [];
const cacheDir = mkdtempSync(join(tmpdir(), 'airlock-bench-cache-'));
let demo: Source;
try {
  const demoDoc = await loadApiDocument(DEMO_SPEC, { cacheDir });
  const demoCatalogue = buildCatalogue(demoDoc.document, demoDoc.refNames);
  demo = {
    name: 'demo',
    split: 'none',
    catalogue: demoCatalogue,
    search: new OperationSearch(demoCatalogue, { tags: demoDoc.document.tags }),
    names: ['demo'],
    queries: [],
  };
  for (const file of readdirSync(evalDir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const name = file.slice(0, -5);
    const set = JSON.parse(readFileSync(join(evalDir, file), 'utf8')) as EvalSet;
    const spec = set.spec ? resolve(root, set.spec) : name === 'openagenda' ? OPENAGENDA_SPEC : undefined;
    if (!spec) {
      console.log(`${name}: left out, needs the OpenAgenda v3 contract (${OPENAGENDA_HOW})`);
      continue;
    }
    const loaded = await loadApiDocument(spec, { cacheDir });
    const catalogue = buildCatalogue(loaded.document, loaded.refNames);
    sources.push({
      name,
      split: set.split ?? 'tuned',
      catalogue,
      search: new OperationSearch(catalogue, { tags: loaded.document.tags }),
      names: [name],
      queries: set.queries.map(({ q, expect }) => ({ q, wanted: new Set(Array.isArray(expect) ? expect : [expect]) })),
    });
  }
} finally {
  rmSync(cacheDir, { recursive: true, force: true });
}
const operations = sources.reduce((n, s) => n + s.catalogue.operations.length, 0);
console.log(`${sources.length} APIs, ${operations} operations, ${sources.reduce((n, s) => n + s.queries.length, 0)} requests\n`);

// 1. Alone, then across a scope.
function compare(title: string, scope: Source[], measured: Source[]): void {
  console.log(`${title}\n`);
  console.log('set            split      ops  top-1 alone  top-1 across  top-3 alone  top-3 across  buried');
  const totals = new Map<string, { n: number; a1: number; x1: number; a3: number; x3: number; buried: number }>();
  const buriedExamples: string[] = [];
  for (const s of measured) {
    let a1 = 0;
    let x1 = 0;
    let a3 = 0;
    let x3 = 0;
    let buried = 0;
    for (const { q, wanted } of s.queries) {
      const alone = s.search.search(q, 8).findIndex((h) => wanted.has(h.op.id));
      const acrossHits = searchAcross(scope, q, 8);
      const across = acrossHits.findIndex((h) => h.from === s && wanted.has(h.op.id));
      if (alone === 0) a1++;
      if (across === 0) x1++;
      if (alone >= 0 && alone < 3) a3++;
      if (across >= 0 && across < 3) x3++;
      if (alone >= 0 && alone < 3 && !(across >= 0 && across < 3)) {
        buried++;
        buriedExamples.push(
          `  ${s.name}: "${q}" → ${acrossHits
            .slice(0, 3)
            .map((h) => `${h.from.name}:${h.op.id} ${h.score.toFixed(2)}`)
            .join(', ')}`,
        );
      }
    }
    const n = s.queries.length;
    console.log(
      `${s.name.padEnd(14)} ${s.split.padEnd(8)} ${String(s.catalogue.operations.length).padStart(5)} ${pct(a1, n).padStart(12)} ${pct(x1, n).padStart(13)} ${pct(a3, n).padStart(12)} ${pct(x3, n).padStart(13)} ${String(buried).padStart(7)}`,
    );
    const t = totals.get(s.split) ?? { n: 0, a1: 0, x1: 0, a3: 0, x3: 0, buried: 0 };
    totals.set(s.split, { n: t.n + n, a1: t.a1 + a1, x1: t.x1 + x1, a3: t.a3 + a3, x3: t.x3 + x3, buried: t.buried + buried });
  }
  if (measured.length > 1)
    for (const [split, t] of totals)
      console.log(
        `${`all ${split}`.padEnd(14)} ${`${t.n} req`.padEnd(8)} ${''.padStart(5)} ${pct(t.a1, t.n).padStart(12)} ${pct(t.x1, t.n).padStart(13)} ${pct(t.a3, t.n).padStart(12)} ${pct(t.x3, t.n).padStart(13)} ${String(t.buried).padStart(7)}`,
      );
  if (!quiet && buriedExamples.length > 0) console.log(`\nburied (the top 3 across, API:operation score):\n${buriedExamples.join('\n')}`);
  console.log('');
}

const benchFour = sources.filter((s) => ['openagenda', 'github', 'stripe'].includes(s.name));
compare(
  `1a. The scope of npm run bench:apis: ${[demo, ...benchFour].map((s) => `${s.name} (${s.catalogue.operations.length})`).join(', ')}`,
  [demo, ...benchFour],
  benchFour,
);
compare(
  `1b. Every API of the evaluation in one scope (${sources.length} APIs, many of them about the same things: users, files, channels, invoices)`,
  sources,
  sources,
);

// 2. The outline, read by a scripted model, on the held-out sets.
/** The group a model that reads only the outline would open: the most words shared with the request (names count, and the line). */
function pickGroup(q: string, groups: OutlineGroup[]): OutlineGroup | undefined {
  const asked = new Set(terms(q));
  let best: OutlineGroup | undefined;
  let bestScore = 0;
  for (const g of groups) {
    const nameWords = new Set(terms(g.name));
    const lineWords = new Set(terms(g.line));
    let score = 0;
    for (const w of asked) score += nameWords.has(w) ? 2 : lineWords.has(w) ? 1 : 0;
    if (score > bestScore) {
      bestScore = score;
      best = g;
    }
  }
  return best;
}

console.log('2. The outline on the held-out APIs: a scripted model picks a group from the outline and searches inside it\n');
console.log('set          groups  top-3 plain  group right  top-3 outline  top-3 either');
let all = { n: 0, plain: 0, group: 0, outline: 0, either: 0 };
for (const s of sources.filter((x) => x.split === 'holdout')) {
  const groups = outlineOf(s.catalogue, (tag) => s.search.tagText(tag));
  let plain = 0;
  let groupRight = 0;
  let outline = 0;
  let either = 0;
  for (const { q, wanted } of s.queries) {
    const plainRank = s.search.search(q, 8).findIndex((h) => wanted.has(h.op.id));
    const picked = pickGroup(q, groups);
    const inGroup = new Set(picked?.operations.map((op) => op.id));
    if ([...wanted].some((id) => inGroup.has(id))) groupRight++;
    // Inside the group: search_docs' ranking kept to the group, then the group's other operations in outline order.
    const ranked = s.search
      .rank(q)
      .map((h) => h.op.id)
      .filter((id) => inGroup.has(id));
    const order = [...ranked, ...(picked?.operations.map((op) => op.id).filter((id) => !ranked.includes(id)) ?? [])];
    const outlineRank = order.findIndex((id) => wanted.has(id));
    const p = plainRank >= 0 && plainRank < 3;
    const o = outlineRank >= 0 && outlineRank < 3;
    if (p) plain++;
    if (o) outline++;
    if (p || o) either++;
  }
  const n = s.queries.length;
  console.log(
    `${s.name.padEnd(12)} ${String(groups.length).padStart(6)} ${pct(plain, n).padStart(12)} ${pct(groupRight, n).padStart(12)} ${pct(outline, n).padStart(14)} ${pct(either, n).padStart(13)}`,
  );
  all = { n: all.n + n, plain: all.plain + plain, group: all.group + groupRight, outline: all.outline + outline, either: all.either + either };
}
if (all.n > 0)
  console.log(
    `${'all held-out'.padEnd(12)} ${''.padStart(6)} ${pct(all.plain, all.n).padStart(12)} ${pct(all.group, all.n).padStart(12)} ${pct(all.outline, all.n).padStart(14)} ${pct(all.either, all.n).padStart(13)}`,
  );
