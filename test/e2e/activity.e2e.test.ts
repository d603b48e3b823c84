// Activity as a person reads it: a run that finished is "ok", as its log
// says, and says which of its calls were denied (the call's row says so
// too); each call sits under its run, even one decided after its run had
// answered (a held call); API-call rows name the client and the profile (in the
// CSV too); selecting a row (by keyboard) marks it and opens a structured
// detail — client, tool, engine, profile, the run's API calls with their
// status and decision, the script highlighted, the run's log lines. Light
// and dark, axe-checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { execute } from '../helpers/mcpClients.ts';
import { startUiFixture, type UiFixture, signedInPage, approvalDialog, nav, chromiumMissing, axe } from '../helpers/browser.ts';
import { controlClient } from '../helpers/control.ts';

const skip = chromiumMissing();
const CLIENT = 'e2e-activity';
let fx: UiFixture;

before(async () => {
  if (skip) return;
  fx = await startUiFixture([], CLIENT);
  // One run: a log line, a read, and a PATCH the person denies.
  const page = await signedInPage(fx.browser, fx.dataDir);
  const run = execute(
    fx.client,
    `console.log('hello from the activity run');
     const list = await api.events.list({ query: { limit: 1 } });
     const r = await api.events.update({ path: { eventId: list.data.data[0].id }, body: { price: 99 } });
     return r.error ? r.error.code : 'changed';`,
  );
  const dialog = approvalDialog(page);
  await dialog.and(page.locator('[data-armed="true"]')).waitFor();
  await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
  assert.match((await run).text, /^airlock_mutation_denied/);
  await page.context().close();
});
after(async () => {
  await fx?.close();
});

const records = (page: Page) => page.getByRole('list', { name: /^Audit records/ }).getByRole('listitem');

async function openActivity(page: Page) {
  await nav(page, 'Activity').click();
  await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
  await records(page)
    .filter({ hasText: `execute by ${CLIENT}` })
    .first()
    .waitFor();
}

for (const scheme of ['light', 'dark'] as const) {
  test(
    `a run that finished is "ok" and names its denied call; the selected row is marked; its detail is structured (${scheme})`,
    { skip, timeout: 90_000 },
    async () => {
      const page = await signedInPage(fx.browser, fx.dataDir, { colorScheme: scheme });
      await openActivity(page);
      const runRow = records(page).filter({ hasText: `execute by ${CLIENT} — ok (1 call denied)` });
      assert.equal(await runRow.count(), 1, (await records(page).allInnerTexts()).join('\n'));
      const patchRow = records(page).filter({ hasText: /PATCH \/events\/\S+ → — \(denied, .*\) · e2e-activity · profile demo/ });
      assert.equal(await patchRow.count(), 1);

      // Keyboard only: focus the run's row and press Enter.
      const runButton = runRow.getByRole('button');
      await runButton.focus();
      await page.keyboard.press('Enter');
      assert.equal(await runButton.getAttribute('aria-pressed'), 'true');
      const marked = await runButton.evaluate(
        (el) => (globalThis as unknown as { getComputedStyle(e: unknown): { boxShadow: string } }).getComputedStyle(el).boxShadow,
      );
      assert.notEqual(marked, 'none', 'the selected row has its bar');

      const detail = page.getByRole('complementary', { name: 'Record detail' });
      await detail.getByRole('heading', { name: /API calls of this run/ }).waitFor();
      const facts = await detail.locator('dl.facts').first().innerText();
      assert.match(facts, new RegExp(`Client\\s+${CLIENT} \\S+ over http`));
      assert.match(facts, /Tool\s+execute/);
      assert.match(facts, /Engine\s+\w+/);
      assert.match(facts, /Profile\s+demo/);
      const calls = detail.getByRole('table', { name: "The run's calls (to APIs and to other MCP servers' tools), oldest first" });
      // The run's read, the read Airlock made to show the person what the PATCH would change (audited as such), the PATCH:
      // the table fills once the run's calls are read, after its heading shows.
      await calls.getByRole('row').nth(3).waitFor({ timeout: 15_000 });
      const rows = await calls.getByRole('row').allInnerTexts();
      assert.equal(rows.length, 4, rows.join('\n'));
      assert.match(rows[1]!, /GET \S+\/events\?limit=1\s+200\s+read/);
      assert.match(rows[2]!, /GET \S+\/events\/\S+\s+200\s+read by Airlock for the prompt \(the run never saw it\)/);
      assert.match(rows[3]!, /PATCH \S+\/events\/\S+\s+—\s+denied by .* via web UI/);
      const script = detail.getByRole('figure', { name: 'Script of this run' });
      assert.ok((await script.locator('.hljs-keyword').count()) > 0);
      assert.match(await script.innerText(), /hello from the activity run/);
      await detail
        .getByRole('region', { name: 'Log lines of this run' })
        .getByText(/hello from the activity run/)
        .waitFor();
      // The read Airlock made to show the person the event is in the run's log.
      await detail
        .getByRole('region', { name: 'Log lines of this run' })
        .getByText(/evidence read GET \/events\/\{eventId\} for PATCH \/events\/\{eventId\}: 200/)
        .waitFor();

      // The API call's own row: the run's detail, that call marked.
      await patchRow.getByRole('button').click();
      await calls.locator('tr[aria-current="true"]', { hasText: 'PATCH' }).waitFor();
      assert.equal(await calls.locator('tr[aria-current="true"]').count(), 1);
      await detail
        .getByText(/Decision\s*denied by/)
        .first()
        .waitFor();

      const results = await axe(page).analyze();
      assert.deepEqual(
        results.violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
        [],
        'no axe violation of any impact',
      );
      await page.context().close();
    },
  );
}

test('a call decided after its run answered (held) sits under its run, not above it in a later run (issue 39 §9)', { skip, timeout: 90_000 }, async () => {
  const control = controlClient(fx.dataDir, fx.server.url);
  // The run answers "held" at once, so its call is decided (and recorded) after the run's own record.
  await control.call('settings.update', { values: { approvalReplyAfterMs: 100 } });
  try {
    const held = await execute(fx.client, `const r = await api.events.delete({ path: { eventId: 'evt_grouped' } }); return r.error?.code ?? 'sent';`);
    assert.match(held.text, /^Held: DELETE/);
    assert.equal((await execute(fx.client, `return 'a later run'`)).text, 'a later run');
    const [pending] = await control.call('approvals.list', {});
    await control.call('approvals.decide', { id: pending!.id, decision: 'deny' });
    const page = await signedInPage(fx.browser, fx.dataDir);
    await openActivity(page);
    const call = records(page).filter({ hasText: /DELETE \/events\/evt_grouped → — \(denied/ });
    await call.waitFor();
    const texts = await records(page).allInnerTexts();
    const at = texts.findIndex((t) => /DELETE \/events\/evt_grouped/.test(t));
    const [run] = (await control.call('audit.query', { runId: pending!.request.runId, kind: 'tool' })).records;
    assert.ok(run, 'the held run has its record');
    // Above the call, only its run's other calls (↳), then its run's row.
    let above = at - 1;
    while (above >= 0 && texts[above]!.includes('↳')) above--;
    assert.ok(
      (texts[above] ?? '(no row above)').startsWith(`#${run.seq} `),
      `the call's row follows its run's (#${run.seq}), not a later one:\n${texts.slice(0, at + 2).join('\n')}`,
    );
    await page.context().close();
  } finally {
    await control.call('settings.update', { values: { approvalReplyAfterMs: 45_000 } });
  }
});

test('the CSV export names the client and the profile on API-call rows', { skip, timeout: 60_000 }, async () => {
  const page = await signedInPage(fx.browser, fx.dataDir);
  await openActivity(page);
  const downloaded = page.waitForEvent('download', { timeout: 20_000 });
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const lines = readFileSync(await (await downloaded).path(), 'utf8')
    .trimEnd()
    .split('\r\n');
  const header = lines[0]!.split(',');
  const rows = lines.slice(1).map((l) => l.split(','));
  const api = rows.filter((r) => r[header.indexOf('kind')] === 'api');
  assert.ok(api.length >= 2, lines.join('\n'));
  for (const r of api) {
    assert.equal(r[header.indexOf('client')], CLIENT);
    assert.equal(r[header.indexOf('profile')], 'demo');
  }
  // The run finished: "ok", as its log says; its denied call is exported as denied.
  assert.ok(
    rows.some((r) => r[header.indexOf('kind')] === 'tool' && r[header.indexOf('outcome')] === 'ok'),
    'the run is exported with its own outcome',
  );
  assert.ok(
    api.some((r) => r[header.indexOf('outcome')] === 'denied'),
    'its denied call is exported as denied',
  );
  await page.context().close();
});
