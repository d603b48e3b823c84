// The organisation's managed policy as a person meets it on the screens (issue 40 §1): a note on each screen whose
// choices it bounds, saying what and that it is set by the organisation; a bounded setting offered only within its
// bound, a fixed one locked; an engine it does not allow shown so and not offered; keyboard only, axe in light and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startUiFixture, type UiFixture, signedInPage, nav, chromiumMissing, axeLightAndDark } from '../helpers/browser.ts';
import { tempDir } from '../helpers/paths.ts';

const skip = chromiumMissing();
let fx: UiFixture;
let page: Page;
let cleanup: () => void;

before(async () => {
  if (skip) return;
  const policyDir = tempDir('airlock-e2e-policy-');
  cleanup = policyDir.cleanup;
  const file = join(policyDir.dir, 'managed.json');
  writeFileSync(
    file,
    JSON.stringify({
      settings: { approvalInClient: false },
      limits: { timeoutMs: { max: 10_000 }, engine: { oneOf: ['quickjs'] } },
      apis: { denyOrigins: ['https://api.github.com'] },
      servers: { denyUrls: ['https://mcp.example.com'] },
      approvals: { ask: 'mutations', maxGrantScope: 'session' },
    }),
  );
  fx = await startUiFixture([], 'e2e-organisation', { AIRLOCK_MANAGED_FILE: file });
  page = await signedInPage(fx.browser, fx.dataDir);
});

after(async () => {
  await fx?.close();
  cleanup?.();
});

const note = () => page.getByRole('note').filter({ hasText: /Set by your organisation/ });

test(
  'Settings: the note says what the organisation sets; a bounded value is offered within its bound, a fixed one is locked',
  { skip, timeout: 60_000 },
  async () => {
    await nav(page, 'Settings').click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    assert.match(await note().innerText(), /fixes approvalInClient; timeoutMs at most 10000 ms; engine one of quickjs/);
    const form = page.getByRole('form', { name: 'Settings' });
    const timeout = form.getByLabel('Timeout per run');
    assert.equal(await timeout.getAttribute('max'), '10000');
    const ids = ((await timeout.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
    const said = (await Promise.all(ids.map((id) => page.locator(`#${id}`).textContent()))).join(' ');
    assert.match(said, /Allowed: 100–10000 ms/);
    assert.match(said, /Your organisation allows at most 10000 ms \(its managed policy\)/);
    assert.equal(await timeout.isDisabled(), false, 'the person still chooses within the bound');
    const engines = form.getByRole('radiogroup', { name: 'Sandbox engine' }).getByRole('radio');
    assert.deepEqual(
      await engines.evaluateAll((radios) => radios.map((r) => r.getAttribute('value') ?? r.textContent)),
      ['quickjs'],
      'only the engines allowed are offered',
    );
    assert.equal(await page.locator('#setting-approvalInClient').isDisabled(), true, 'a fixed value cannot be changed here');
    const problems = await axeLightAndDark(page);
    assert.deepEqual(problems, []);
  },
);

test('APIs, Servers, Rules and Approvals each say what the organisation sets on their choices', { skip, timeout: 60_000 }, async () => {
  const screens: ['APIs' | 'Servers' | 'Rules' | 'Approvals', RegExp][] = [
    ['APIs', /no APIs at https:\/\/api\.github\.com/],
    ['Servers', /no MCP servers at https:\/\/mcp\.example\.com/],
    ['Rules', /every mutation asks a person; approvals at most "session"/],
    ['Approvals', /every mutation asks a person/],
  ];
  for (const [screen, said] of screens) {
    await nav(page, screen).click();
    await note().waitFor({ timeout: 15_000 });
    assert.match(await note().innerText(), said, screen);
  }
});

test('Engine: an engine the organisation does not allow is shown so, says why, and offers no Apply', { skip, timeout: 60_000 }, async () => {
  await nav(page, 'Engine').click();
  await page.getByRole('table', { name: /Engine × network boundary/ }).waitFor();
  assert.match(await page.locator('.screen').innerText(), /Some engines or boundaries are not allowed by your organisation/);
  const cell = page.getByRole('button', { name: 'Deno with egress executor: Not allowed by your organisation' });
  await cell.focus();
  await page.keyboard.press('Enter');
  const details = page.getByRole('region', { name: /Deno with egress executor/ });
  assert.match(await details.getByRole('alert').innerText(), /Not allowed: engine deno is not allowed: it must be one of quickjs \(set by your organisation/);
  assert.equal(await details.getByRole('button', { name: /^Apply/ }).count(), 0);
  const problems = await axeLightAndDark(page);
  assert.deepEqual(problems, []);
});
