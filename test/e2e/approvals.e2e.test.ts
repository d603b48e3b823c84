// The approval flow end to end, as a person sees it: an MCP client runs code
// that creates an event on the demo API; the call waits; the approval
// appears in the browser; the person's click decides, and the demo API holds
// exactly what was approved. Real processes, real browser, no sleeps.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execute, httpClient } from '../helpers/mcpClients.ts';
import { startUiFixture, type UiFixture, signedInPage, nav, approvalDialog, chromiumMissing, axe } from '../helpers/browser.ts';
import { controlClient } from '../helpers/control.ts';

const skip = chromiumMissing();
let browser: Browser;
let client: Client;
let dataDir: string;
let page: Page;

const createEvent = (title: string) =>
  `const r = await api.events.create({ body: { title: ${JSON.stringify(title)}, category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } });
   return r.error ? { error: r.error } : { created: r.data.title };`;
const countTitled = async (title: string) =>
  JSON.parse(
    (
      await execute(
        client,
        `const r = await api.events.list({ query: { q: ${JSON.stringify(title)}, limit: 50 } }); return r.data.data.filter((e) => e.title === ${JSON.stringify(title)}).length;`,
      )
    ).text,
  ) as number;

/** Focus moves to Deny when an item becomes the head (from anywhere but a text field), and the guard time ends: wait for both before pressing keys. */
/** Whether an element is wholly inside the viewport, as the page is scrolled now. */
const inView = async (p: Page, locator: ReturnType<Page['locator']>) => {
  const box = await locator.boundingBox();
  const size = p.viewportSize()!;
  return box !== null && box.y >= 0 && box.y + box.height <= size.height;
};
const denyFocused = (p: Page) => p.locator('[role="alertdialog"][data-armed="true"] button:focus', { hasText: /^Deny$/ }).waitFor({ timeout: 10_000 });

let fx: UiFixture;

before(async () => {
  if (skip) return;
  // The default approval timeout (2 min): a prompt waits while the tests look at it. The timeout test shortens it, live.
  fx = await startUiFixture([], 'e2e-client');
  ({ browser, client, dataDir } = fx);
  page = await signedInPage(browser, dataDir);
});

after(async () => {
  await fx?.close();
});

test('Allow once: the script gets the created event and the API holds exactly one', { skip, timeout: 60_000 }, async () => {
  const run = execute(client, createEvent('e2e allowed'));
  const dialog = approvalDialog(page);
  await dialog.waitFor();
  assert.match((await dialog.getByRole('heading').first().textContent()) ?? '', /Action required · 1 held/);
  assert.match(await dialog.innerText(), /POST \/events/);
  assert.match(await dialog.innerText(), /No answer = deny in (2:00|1:5\d)/);
  // Deny has the focus; a bare Enter would deny, never approve.
  await denyFocused(page);
  // Once the countdown has moved on a second, nothing on the page is animating: a held call costs no drawing between
  // seconds (a transition from each second to the next once kept Chromium at 40 % of a core for as long as it waited).
  const shown = await dialog.getByText(/No answer = deny in/).innerText();
  await dialog
    .getByText(/No answer = deny in/)
    .filter({ hasNotText: shown })
    .waitFor();
  // (A string: this file is type-checked without the DOM's types.)
  const running = (await page.evaluate(
    `document.getAnimations().filter((a) => a.playState === 'running').map((a) => a.transitionProperty ? 'transition of ' + a.transitionProperty : 'animation ' + a.animationName)`,
  )) as string[];
  assert.deepEqual(running, []);
  await dialog.getByRole('button', { name: 'Allow once' }).click();
  assert.deepEqual(JSON.parse((await run).text), { created: 'e2e allowed' });
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await countTitled('e2e allowed'), 1);
});

test('Deny with a reason: the script gets the reason and the API holds none', { skip, timeout: 60_000 }, async () => {
  const run = execute(client, createEvent('e2e denied'));
  const dialog = approvalDialog(page);
  await dialog.waitFor();
  await dialog.getByLabel(/Reason for denying/).fill('not on a Friday');
  await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
  const result = JSON.parse((await run).text) as { error: { message: string } };
  assert.match(result.error.message, /was not approved: not on a Friday/);
  assert.equal(await countTitled('e2e denied'), 0);
});

test('Esc denies the head item; Ctrl+Enter allows it once', { skip, timeout: 60_000 }, async () => {
  const denied = execute(client, createEvent('e2e escaped'));
  await approvalDialog(page).waitFor();
  await denyFocused(page);
  await page.keyboard.press('Escape');
  assert.match(JSON.parse((await denied).text).error.message, /was not approved/);
  const allowed = execute(client, createEvent('e2e ctrl-enter'));
  await approvalDialog(page).waitFor();
  await denyFocused(page);
  await page.keyboard.press('Control+Enter');
  assert.deepEqual(JSON.parse((await allowed).text), { created: 'e2e ctrl-enter' });
});

test('no answer is a denial that says it timed out; the timeout is changed without a restart', { skip, timeout: 60_000 }, async () => {
  const control = controlClient(dataDir, fx.server.url);
  const update = await control.call('settings.update', { values: { approvalTimeoutMs: 2000 } });
  assert.deepEqual(update.applied, ['approvalTimeoutMs']);
  let result: { error: { message: string; code: string } };
  try {
    const run = execute(client, createEvent('e2e timeout'));
    await approvalDialog(page).waitFor();
    result = JSON.parse((await run).text) as { error: { message: string; code: string } };
  } finally {
    await control.call('settings.update', { values: { approvalTimeoutMs: 120_000 } });
  }
  assert.equal(result.error.code, 'airlock_approval_timeout');
  assert.match(result.error.message, /timed out: no one answered within 2 s/);
  await nav(page, 'Approvals').click();
  await page
    .getByRole('listitem')
    .filter({ hasText: /e2e timeout|timed out: no one answered \(denied\)/ })
    .first()
    .waitFor();
  assert.equal(await countTitled('e2e timeout'), 0);
});

test(
  'typing in a form while an approval arrives loses no character and decides nothing; the answer returns focus to it',
  { skip, timeout: 60_000 },
  async () => {
    await nav(page, 'Logs').click();
    const find = page.getByRole('textbox', { name: 'Find' });
    await find.click();
    const text = 'session opened by the person who keeps typing';
    const typing = page.keyboard.type(text, { delay: 25 });
    const run = execute(client, createEvent('e2e typed over'));
    const dialog = approvalDialog(page);
    await dialog.waitFor();
    await typing;
    assert.equal(await find.inputValue(), text, 'every character went to the field');
    assert.match(page.url(), /#\/logs$/, 'the person stays on the screen they were on');
    assert.equal(await find.and(page.locator(':focus')).count(), 1, 'the field keeps the focus');
    assert.equal(await dialog.count(), 1, 'nothing was decided');
    await dialog.getByRole('button', { name: 'Allow once' }).click();
    assert.deepEqual(JSON.parse((await run).text), { created: 'e2e typed over' });
    await dialog.waitFor({ state: 'detached' });
    // After the answer, focus is back in the field.
    await find.and(page.locator(':focus')).waitFor({ timeout: 5_000 });
    assert.equal(await find.inputValue(), text);
  },
);

test('a key held down as the prompt appears decides nothing', { skip, timeout: 60_000 }, async () => {
  await nav(page, 'Overview').click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).click();
  await page.keyboard.down(' ');
  const run = execute(client, createEvent('e2e held key'));
  await denyFocused(page);
  // Released on the focused Deny button, after the guard time: a click, which must not answer.
  await page.keyboard.up(' ');
  const dialog = approvalDialog(page);
  assert.equal(await dialog.count(), 1);
  // The answer that counts is the one given after the prompt appeared.
  await dialog.getByRole('button', { name: 'Allow once' }).click();
  assert.deepEqual(JSON.parse((await run).text), { created: 'e2e held key' });
});

test('a second tab sees the decision made in the first', { skip, timeout: 60_000 }, async () => {
  const other = await signedInPage(browser, dataDir);
  try {
    await nav(other, 'Approvals').click();
    await other.locator('section[data-loaded="true"]', { has: other.getByRole('heading', { name: 'Answered' }) }).waitFor();
    // The Answered list comes from the audit: the earlier answers are there already; one more shows up.
    const allowedOnce = other.getByRole('listitem').filter({ hasText: /allowed \(once\) by .* via web UI/ });
    const before = await allowedOnce.count();
    const run = execute(client, createEvent('e2e two tabs'));
    await approvalDialog(other).waitFor();
    await approvalDialog(page).getByRole('button', { name: 'Allow once' }).click();
    await approvalDialog(other).waitFor({ state: 'detached' });
    await allowedOnce.nth(before).waitFor();
    assert.deepEqual(JSON.parse((await run).text), { created: 'e2e two tabs' });
    assert.equal(await other.title(), 'Airlock');
  } finally {
    await other.context().close();
  }
});

test('the tab title counts what waits', { skip, timeout: 60_000 }, async () => {
  const run = execute(client, createEvent('e2e title'));
  await approvalDialog(page).waitFor();
  assert.match(await page.title(), /^\(1\) Airlock/);
  await denyFocused(page);
  await page.keyboard.press('Escape');
  await run;
  // A denial without a reason says who denied it, once.
  await nav(page, 'Approvals').click();
  const answered = page
    .getByRole('listitem')
    .filter({ hasText: /e2e title|\/events/ })
    .filter({ hasText: /denied by/ })
    // Shown at once as "being recorded…", then with its audit record.
    .filter({ hasText: /Activity record #\d+/ })
    .first();
  await answered.waitFor({ timeout: 10_000 });
  const text = (await answered.innerText()).trim();
  // Time, operation, client, the answer, and the link to its Activity record.
  assert.match(text, /^\S.* · POST .*\/events \(events\.create\) from e2e-client — denied by .* via web UI · Activity record #\d+$/);
  assert.doesNotMatch(text, /denied by (.*): denied by \1/);
});

test('the prompt says when the client stopped waiting; the person can still decide, and Deny reads as a dismissal', { skip, timeout: 60_000 }, async () => {
  const leaving = await httpClient(fx.server.mcpUrl, fx.server.token, 'leaving-client');
  const run = execute(leaving, createEvent('e2e left')).catch(() => undefined);
  const dialog = approvalDialog(page);
  await dialog.waitFor();
  await dialog
    .getByText(/^leaving-client wants/)
    .or(dialog.getByText(/POST \/events/))
    .first()
    .waitFor();
  // The client goes away while its call waits, before it was answered "held": it never got the run's id.
  await leaving.close();
  await dialog
    .getByText(
      /^leaving-client stopped waiting at .+\. You can still decide: if you allow it, the call is sent, but the client will not get the result \(it cancelled before it was given the run to resume\)\.$/,
    )
    .waitFor();
  const deny = dialog.getByRole('button', { name: 'Deny', exact: true });
  assert.match((await deny.getAttribute('aria-describedby')) ?? '', /deny-note/);
  await dialog.getByText(/Dismisses the request/).waitFor({ state: 'attached' });
  await denyFocused(page);
  await deny.click();
  await dialog.waitFor({ state: 'detached' });
  await run;
  assert.equal(await countTitled('e2e left'), 0);
});

test(
  'Approvals opened from the nav with a call held (900×700): at the top of the request, its heading focused, no decision; a call that arrives there still focuses Deny',
  { skip, timeout: 60_000 },
  async () => {
    const narrow = await signedInPage(browser, dataDir, { viewport: { width: 900, height: 700 } });
    try {
      await nav(narrow, 'Overview').click();
      const run = execute(client, createEvent('e2e opened from the nav'));
      // Over Overview, the drawer.
      await approvalDialog(narrow).waitFor();
      await nav(narrow, 'Approvals').click();
      await narrow.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
      const dialog = approvalDialog(narrow);
      const heading = dialog.getByRole('heading', { name: /^Action required · 1 held/ });
      await heading.and(narrow.locator(':focus')).waitFor({ timeout: 5_000 });
      await narrow.locator('[role="alertdialog"][data-armed="true"]').waitFor();
      assert.equal(await dialog.getByRole('button', { name: 'Deny', exact: true }).and(narrow.locator(':focus')).count(), 0, 'no decision has the focus');
      assert.equal(await narrow.evaluate('scrollY'), 0, 'the page is not scrolled');
      assert.ok(await inView(narrow, heading), 'the heading is in view');
      assert.ok(await inView(narrow, dialog.locator('.operation')), 'the request is in view');
      // The keys work from the heading: Esc denies.
      await narrow.keyboard.press('Escape');
      assert.match(JSON.parse((await run).text).error.message, /was not approved/);
      await dialog.waitFor({ state: 'detached' });
      // On the Approvals screen, a call that arrives takes the focus to Deny, as before.
      const next = execute(client, createEvent('e2e arrived on approvals'));
      await dialog.waitFor();
      await denyFocused(narrow);
      await narrow.keyboard.press('Escape');
      assert.match(JSON.parse((await next).text).error.message, /was not approved/);
    } finally {
      await narrow.context().close();
    }
  },
);

test('the request details keep the heading order: no level skipped under the prompt, on Approvals and in the drawer', { skip, timeout: 60_000 }, async () => {
  const run = execute(client, createEvent('e2e heading order'));
  const problems: string[] = [];
  for (const screen of ['Approvals', 'Overview'] as const) {
    await nav(page, screen).click();
    await page.getByRole('heading', { name: screen, level: 1 }).waitFor();
    const dialog = approvalDialog(page);
    await dialog.waitFor();
    await dialog.getByText('Details: script, earlier calls, rule').click();
    await dialog.getByRole('heading', { name: 'Earlier calls of this run' }).waitFor();
    const results = await axe(page).withRules(['heading-order']).analyze();
    problems.push(...results.violations.flatMap((v) => v.nodes.map((n) => `${screen}: ${v.id} — ${n.target.join(' ')}`)));
  }
  assert.deepEqual(problems, []);
  await page.locator('[role="alertdialog"][data-armed="true"]').waitFor();
  await approvalDialog(page).getByRole('button', { name: 'Deny', exact: true }).click();
  await run;
});

test('Activity shows the tool call with its API call and the decision', { skip, timeout: 60_000 }, async () => {
  await nav(page, 'Activity').click();
  await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
  await page
    .getByRole('listitem')
    .filter({ hasText: /POST .*\/events .*approved, .* via web UI/ })
    .first()
    .waitFor();
  await page
    .getByRole('listitem')
    .filter({ hasText: /execute by e2e-client/ })
    .first()
    .waitFor();
});

test('Activity filters by call, decision and method, exports the filtered view as CSV, and verifies the chain', { skip, timeout: 60_000 }, async () => {
  await nav(page, 'Activity').click();
  const filters = page.getByRole('search', { name: 'Filter the audit log' });
  await filters.getByLabel('Call').selectOption({ label: 'API call' });
  await filters.getByLabel('Decision').selectOption('denied');
  await filters.getByLabel('Method').selectOption('POST');
  const rows = page.getByRole('list', { name: /^Audit records/ }).getByRole('listitem');
  // The filtered view has replaced the full one: no row left that is not a denied POST.
  await rows
    .filter({ hasNotText: /POST .*denied/ })
    .first()
    .waitFor({ state: 'detached' });
  await rows
    .filter({ hasText: /POST .*\/events .*denied/ })
    .first()
    .waitFor();
  const texts = await rows.allInnerTexts();
  assert.ok(texts.length > 0 && texts.every((t) => /POST .*denied/.test(t)), texts.join('\n'));

  const downloaded = page.waitForEvent('download', { timeout: 20_000 });
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const file = await (await downloaded).path();
  const lines = readFileSync(file, 'utf8').trimEnd().split('\r\n');
  assert.match(lines[0]!, /^seq,time,kind,client,tool,profile,operation,call,method,url,status,decision/);
  assert.equal(lines.length - 1, texts.length, 'one row per record of the filtered view');
  assert.ok(
    lines.slice(1).every((l) => /,api-call,POST,.*,denied,/.test(l)),
    lines.join('\n'),
  );
  await page
    .getByRole('status')
    .filter({ hasText: new RegExp(`Exported ${texts.length} records to airlock-audit-.*\\.csv`) })
    .waitFor();

  await filters.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByRole('button', { name: 'Verify chain' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /Chain intact: \d+ records/ })
    .waitFor();
});

test('console.log in a run shows up in Logs', { skip, timeout: 60_000 }, async () => {
  await execute(client, `console.log('hello from the e2e sandbox'); return 1;`);
  await nav(page, 'Logs').click();
  await page.getByRole('heading', { name: 'Logs', level: 1 }).waitFor();
  await page
    .locator('.xterm-rows')
    .getByText(/hello from the e2e sandbox/)
    .waitFor();
});

test('Logs: paused lines are kept and shown on resume; Save writes the filtered log; a missing search term says so', { skip, timeout: 60_000 }, async () => {
  await nav(page, 'Logs').click();
  const rows = page.locator('.xterm-rows');
  await page.getByRole('button', { name: 'Pause' }).click();
  await execute(client, `console.log('held while paused'); return 1;`);
  await page.getByText('Paused: new lines are kept').waitFor();
  assert.equal(await rows.getByText(/held while paused/).count(), 0, 'not written while paused');
  await page.getByRole('button', { name: 'Resume' }).click();
  await rows.getByText(/held while paused/).waitFor();

  await page.getByLabel('Find').fill('no-such-line-anywhere');
  await page.getByRole('button', { name: 'Find next' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /"no-such-line-anywhere" is not in the log shown/ })
    .waitFor();

  const downloaded = page.waitForEvent('download', { timeout: 20_000 });
  await page.getByRole('button', { name: 'Save…' }).click();
  const saved = readFileSync(await (await downloaded).path(), 'utf8');
  assert.match(saved, /held while paused/);
  assert.ok(!saved.includes('\u001b['), 'plain text, no terminal colours');
});
