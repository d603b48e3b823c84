// docs/architecture.md names the services the companion is made of; this
// holds that list to the Services interface in main/core/runtime/services.ts,
// so a service added, renamed or removed is described where a newcomer reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/paths.ts';

/** The members of `export interface Services { … }`. */
function servicesInCode(): string[] {
  const text = readFileSync(join(ROOT, 'main', 'core', 'runtime', 'services.ts'), 'utf8');
  const body = /^export interface Services \{\n([\s\S]*?)^\}/m.exec(text)?.[1];
  assert.ok(body, 'services.ts declares export interface Services');
  return [...body.matchAll(/^ {2}(?:readonly )?(\w+)\??:/gm)].map((m) => m[1]!);
}

/** The services the architecture's `services.ts` item names: each `name` in backquotes, up to the next item. */
function servicesInDoc(): string[] {
  const text = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const item = /^- `services\.ts`:([\s\S]*?)^- /m.exec(text)?.[1];
  assert.ok(item, 'docs/architecture.md has an item for services.ts');
  // Without what is in parentheses (the examples and details).
  let plain = item;
  while (/\([^()]*\)/.test(plain)) plain = plain.replace(/\([^()]*\)/g, '');
  return [...plain.matchAll(/`(\w+)`/g)].map((m) => m[1]!);
}

test('docs/architecture.md lists the services of services.ts, no more and no fewer', { timeout: 10_000 }, () => {
  assert.deepEqual([...servicesInDoc()].sort(), [...servicesInCode()].sort());
});
