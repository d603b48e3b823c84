// The README's configuration table and command list stay true: every setting
// (flag and env twin) and every CLI command is documented; the README and the
// docs link only inside the repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { SETTINGS } from '../../main/core/config/settings.ts';
import { ROOT } from '../helpers/paths.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

test('every setting is in the README with its flag and env twin', () => {
  for (const s of SETTINGS) {
    assert.ok(readme.includes(`\`${s.flag}`), `README lacks ${s.flag}`);
    assert.ok(readme.includes(`\`${s.env}\``), `README lacks ${s.env}`);
  }
});

test('every command is in the README', () => {
  for (const c of [
    'airlock serve',
    'airlock stdio',
    'airlock doctor',
    'airlock approvals list',
    'airlock approvals approve',
    'airlock approvals deny',
    'airlock keys set',
    'airlock keys rm',
    'airlock keys ls',
    'airlock audit tail',
    'airlock audit export',
    'airlock audit verify',
    'airlock print-egress-policy',
    'npm test',
    'npm ci',
  ]) {
    assert.ok(readme.includes(c), `README lacks ${c}`);
  }
});

test('README and docs link only to files inside the repository, and every such file exists', () => {
  const pages = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join('docs', f)),
  ];
  for (const page of pages) {
    const text = readFileSync(join(ROOT, page), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:|#)/.test(target!)) continue;
      const file = resolve(ROOT, dirname(page), target!.split('#')[0]!);
      assert.ok(file.startsWith(ROOT + sep), `${page} links outside the repository: ${target}`);
      assert.ok(existsSync(file), `${page} links to a missing file: ${target}`);
    }
  }
});
