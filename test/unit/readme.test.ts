// The README is a short front door and the depth lives in docs/; both stay
// true. The README fits in 200 lines, starts with the two set-up commands and
// links every docs page; docs/configuration.md is exactly what the generator
// writes from the settings table (so every setting, flag and env twin is
// documented); every CLI command is documented in docs/using.md; and the
// README, docs/*.md and bench/README.md link only inside the repository, to
// files (and headings) that exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { SETTINGS } from '../../main/core/config/settings.ts';
import { CONFIGURATION_DOC, configurationDoc, NOTES } from '../../scripts/configurationDoc.ts';
import { ROOT } from '../helpers/paths.ts';

const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');
const readme = read('README.md');
const docsPages = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => join('docs', f));
const pages = ['README.md', ...docsPages, join('bench', 'README.md')];

test('the README is a front door: at most 200 lines', () => {
  const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= 200, `README.md has ${lines} lines (at most 200; move the depth into docs/)`);
});

test('the README opens with the two set-up commands', () => {
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  assert.ok(readme.indexOf('```sh') < readme.indexOf('\n## '), 'the set-up commands come before the first section');
  assert.match(firstBlock, /^npm ci && npm start\b/m, 'the first block installs, builds and starts: npm ci && npm start');
  assert.match(firstBlock, /^npm test\b/m, 'the first block runs the tests: npm test');
});

test('every docs page is linked from the README, and every docs page it links exists', () => {
  const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((m) => m[1]!));
  for (const page of docsPages) assert.ok(linked.has(page.split(sep).join('/')), `README does not link ${page}`);
  for (const target of linked) assert.ok(existsSync(join(ROOT, target)), `README links a missing docs page: ${target}`);
  assert.ok(readme.includes('](bench/README.md'), 'README does not link bench/README.md');
});

test('docs/configuration.md is what scripts/configurationDoc.ts writes from the settings table', () => {
  const onDisk = existsSync(CONFIGURATION_DOC) ? readFileSync(CONFIGURATION_DOC, 'utf8') : '';
  assert.ok(onDisk === configurationDoc(), `${relative(ROOT, CONFIGURATION_DOC)} is stale: run node scripts/configurationDoc.ts`);
});

test('every setting is in docs/configuration.md with its flag and env twin', () => {
  const doc = read('docs/configuration.md');
  for (const s of SETTINGS) {
    assert.ok(doc.includes(`\`${s.flag}`), `docs/configuration.md lacks ${s.flag}`);
    assert.ok(doc.includes(`\`${s.env}\``), `docs/configuration.md lacks ${s.env}`);
  }
  assert.ok(doc.includes('`AIRLOCK_API_KEY`'), 'docs/configuration.md lacks AIRLOCK_API_KEY');
});

test("the generator's hand-written notes are about settings that exist", () => {
  const keys = new Set<string>(SETTINGS.map((s) => s.key));
  for (const key of Object.keys(NOTES)) assert.ok(keys.has(key), `scripts/configurationDoc.ts has a note for '${key}', which is not a setting`);
});

test('every command is documented in docs/using.md, and the set-up commands in the README', () => {
  // main/cli/main.ts runs the CLI when imported, so the list is kept here.
  const using = read('docs/using.md');
  for (const c of [
    'airlock serve',
    'airlock stdio',
    'airlock doctor',
    'airlock open',
    'airlock approvals list',
    'airlock approvals approve',
    'airlock approvals deny',
    'airlock keys set',
    'airlock keys rm',
    'airlock keys ls',
    'airlock clients list',
    'airlock audit tail',
    'airlock audit export',
    'airlock audit verify',
    'airlock print-egress-policy',
  ]) {
    assert.ok(using.includes(c), `docs/using.md lacks ${c}`);
  }
  const clients = read('docs/clients.md');
  for (const c of ['airlock clients list', 'airlock clients add', 'airlock clients remove', 'airlock clients undo']) {
    assert.ok(clients.includes(c), `docs/clients.md lacks ${c}`);
  }
  for (const c of ['npm test', 'npm ci']) assert.ok(readme.includes(c), `README lacks ${c}`);
});

/** The anchors GitHub gives a page's headings (fenced code skipped; repeats get -1, -2…). */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const slug = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

test('README, docs and bench/README.md link only inside the repository, to files and headings that exist', () => {
  for (const page of pages) {
    const text = read(page);
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:)/.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const file = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), path);
      assert.ok(file.startsWith(ROOT + sep), `${page} links outside the repository: ${target}`);
      assert.ok(existsSync(file), `${page} links to a missing file: ${target}`);
      if (anchor && file.endsWith('.md')) {
        assert.ok(anchors(readFileSync(file, 'utf8')).has(anchor), `${page} links to a missing heading: ${target}`);
      }
    }
  }
});

test('every source file the pages name by its file name exists (a moved or renamed module is caught)', () => {
  const files = new Set(
    readdirSync(ROOT, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !e.parentPath.includes(`${sep}node_modules`) && !e.parentPath.includes(`${sep}.git`))
      .map((e) => e.name),
  );
  const missing: string[] = [];
  for (const page of pages) {
    for (const [, name] of read(page).matchAll(/`(?:[\w./-]*\/)?([\w.-]+\.(?:ts|tsx|sh))`/g)) if (!files.has(name!)) missing.push(`${page}: ${name}`);
  }
  assert.deepEqual(missing, []);
});
