// The Rules view and the prompt's scopes end to end, as a person uses them:
// the scope is chosen before "Allow", a grant shows up in Rules with its
// scope in words, what is in effect and live counts; "every client, until
// revoked" asks once more inside the prompt; the APIs screen says the same as
// Rules; a policy set in Rules applies to the next call; the Answered list
// comes from the audit (it survives a reload) and links to the Activity
// record; axe finds no serious or critical violation on Rules or on the
// prompt, light and dark. Real processes, real browser, no sleeps.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execute, httpClient } from '../helpers/mcpClients.ts';
import { startUiFixture, type UiFixture, signedInPage, nav, approvalDialog, chromiumMissing, axe } from '../helpers/browser.ts';
import { controlClient, waitForEvent } from '../helpers/control.ts';

const skip = chromiumMissing();
let browser: Browser;
let client: Client;
let other: Client;
let dataDir: string;
let page: Page;
let fx: UiFixture;

const createEvent = (title: string) =>
  `const r = await api.events.create({ body: { title: ${JSON.stringify(title)}, category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } });
   return r.error ? { error: r.error } : { created: r.data.title };`;

/** The Rules table's row for an operation. */
const ruleRow = (p: Page, operationId: string) => p.locator(`table.rules tr[data-operation="${operationId}"]`);
const armed = (p: Page) => p.locator('[role="alertdialog"][data-armed="true"]').waitFor({ timeout: 10_000 });

before(async () => {
  if (skip) return;
  fx = await startUiFixture(['--approval-timeout-ms', '60000'], 'e2e-rules');
  ({ browser, client, dataDir } = fx);
  other = await httpClient(fx.server.mcpUrl, fx.server.token, 'other-client');
  page = await signedInPage(browser, dataDir);
});

after(async () => {
  await other?.close();
  await fx?.close();
});

test('the scope is chosen before Allow; "this client, this session" lets that client through, and Rules says so, live', { skip, timeout: 90_000 }, async () => {
  await nav(page, 'Rules').click();
  await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor();
  const row = ruleRow(page, 'events.create');
  await row.getByText('Asks a person').waitFor();
  await row.getByText('0 allowed · 0 asked · 0 refused').waitFor();

  const run = execute(client, createEvent('rules: session'));
  const dialog = approvalDialog(page);
  await dialog.waitFor();
  // The default is this call only: the allow button is "Allow once".
  assert.equal(await dialog.getByRole('radio', { name: 'This call only' }).isChecked(), true);
  await dialog.getByRole('button', { name: 'Allow once' }).waitFor();
  // "This client, until revoked" says what it is bound to.
  assert.match((await dialog.getByRole('radio', { name: 'This client, until revoked' }).getAttribute('aria-describedby')) ?? '', /scope-client-always-hint/);
  await dialog.getByText(/Bound to the name "e2e-rules" the client declares/).waitFor();
  await dialog.getByRole('radio', { name: 'This client, this session' }).check();
  await armed(page);
  await dialog.getByRole('button', { name: 'Allow for this client, this session' }).click();
  assert.deepEqual(JSON.parse((await run).text), { created: 'rules: session' });

  await row.getByText('this client, this session (e2e-rules)', { exact: true }).waitFor();
  await row.getByText('Allowed for e2e-rules (grant); other clients are asked').waitFor();
  await row.getByText(/used 0×/).waitFor();
  // The same client again: through without a prompt; the grant's use and the counts change on screen without a reload.
  assert.deepEqual(JSON.parse((await execute(client, createEvent('rules: session 2'))).text), { created: 'rules: session 2' });
  await row.getByText(/used 1× · last \d/).waitFor();
  await row.getByText('1 allowed · 1 asked · 0 refused').waitFor();
  // The counts come from the audit: a reload keeps them.
  await page.reload();
  await ruleRow(page, 'events.create').getByText('1 allowed · 1 asked · 0 refused').waitFor();
});

test('"every client, until revoked" asks once more inside the prompt; Esc takes that back without denying', { skip, timeout: 90_000 }, async () => {
  await nav(page, 'Rules').click();
  const run = execute(other, createEvent('rules: everyone'));
  const dialog = approvalDialog(page);
  await dialog.waitFor();
  await dialog.getByRole('radio', { name: 'Every client, until revoked' }).check();
  await armed(page);
  await dialog.getByRole('button', { name: 'Allow for every client, until revoked…' }).click();
  const confirm = dialog.getByRole('group', { name: /Every client will run POST \/events/ });
  await confirm.waitFor();
  // The confirmation has the focus (on Cancel); Esc closes it and denies nothing.
  await confirm.getByRole('button', { name: 'Cancel' }).and(page.locator(':focus')).waitFor();
  await page.keyboard.press('Escape');
  await confirm.waitFor({ state: 'detached' });
  assert.equal(await dialog.count(), 1, 'still waiting for an answer');
  await dialog.getByRole('button', { name: 'Allow for every client, until revoked…' }).click();
  await confirm.getByRole('button', { name: 'Yes, allow every client until revoked' }).click();
  assert.deepEqual(JSON.parse((await run).text), { created: 'rules: everyone' });

  const row = ruleRow(page, 'events.create');
  await row.getByText('Allowed: grant for every client, until revoked').waitFor();
  // The APIs screen says the same.
  await nav(page, 'APIs').click();
  await page
    .getByRole('row', { name: /events\.create/ })
    .getByText('Allowed: grant for every client, until revoked')
    .waitFor();
  // Revoked in Rules, the operation asks again (but for the client with its session grant).
  await nav(page, 'Rules').click();
  await row.getByRole('button', { name: 'Revoke grant for events.create, every client, until revoked' }).click();
  await row.getByText('Allowed for e2e-rules (grant); other clients are asked').waitFor();
  await page.getByRole('status').filter({ hasText: 'Revoked the grant for events.create (every client, until revoked).' }).waitFor();
});

test(
  'the scope is chosen with the keyboard alone: Shift+Tab from Deny reaches the choices, arrows choose, the allow button follows',
  { skip, timeout: 90_000 },
  async () => {
    await nav(page, 'Overview').click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).click();
    const run = execute(
      other,
      `const a = await api.events.create({ body: { title: 'k1', category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } });
    const b = await api.events.create({ body: { title: 'k2', category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } });
    return [a.status, b.status];`,
    );
    const dialog = approvalDialog(page);
    await page.locator('[role="alertdialog"][data-armed="true"] button:focus', { hasText: /^Deny$/ }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Shift+Tab');
    await dialog.getByRole('radio', { name: 'This call only' }).and(page.locator(':focus')).waitFor();
    await page.keyboard.press('ArrowDown');
    assert.equal(await dialog.getByRole('radio', { name: 'The rest of this run' }).isChecked(), true);
    await page.keyboard.press('Tab'); // Deny
    await page.keyboard.press('Tab'); // the allow button, named for the choice
    await dialog.getByRole('button', { name: 'Allow for the rest of this run' }).and(page.locator(':focus')).waitFor();
    await page.keyboard.press('Enter');
    // The run's second call went through without asking.
    assert.deepEqual(JSON.parse((await run).text), [201, 201]);
    await dialog.waitFor({ state: 'detached' });
  },
);

test('a policy set in Rules applies to the next call, and the refusal is counted', { skip, timeout: 90_000 }, async () => {
  await nav(page, 'Rules').click();
  const row = ruleRow(page, 'events.create');
  await row.getByLabel('Policy for events.create').selectOption('deny');
  await row.getByText('Refused by the policy (its grants are not used)').waitFor();
  const result = JSON.parse((await execute(client, createEvent('rules: denied'))).text) as { error: { code: string } };
  assert.equal(result.error.code, 'airlock_mutation_denied');
  await row.getByText(/ · 1 refused/).waitFor();
  await row.getByLabel('Policy for events.create').selectOption('');
  await row.getByText('Allowed for e2e-rules (grant); other clients are asked').waitFor();
});

test('the Answered list comes from the audit: it survives a reload, and links to the Activity record', { skip, timeout: 90_000 }, async () => {
  await nav(page, 'Approvals').click();
  await page.reload();
  const answered = page.getByRole('region', { name: 'Answered' }).or(page.locator('section[aria-labelledby="answered-title"]')).first();
  const item = answered.getByRole('listitem').filter({ hasText: /POST .*\/events .*from e2e-rules — allowed \(this client, this session\) by .* via web UI/ });
  await item.waitFor().catch(async (e: Error) => {
    throw new Error(`${e.message}\nAnswered shows:\n${await answered.innerText().catch(() => '(nothing)')}`);
  });
  await answered
    .getByRole('listitem')
    .filter({ hasText: /from other-client — allowed \(every client, until revoked\)/ })
    .waitFor();
  const link = item.getByRole('link', { name: /^Activity record #\d+$/ });
  const seq = (await link.innerText()).replace(/\D/g, '');
  await link.click();
  await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
  assert.match(page.url(), /#\/activity\?run=[^&]+&seq=\d+$/);
  // The record is selected, and the list shows that run.
  await page.locator('button[aria-pressed="true"]', { hasText: `#${seq} ` }).waitFor();
});

for (const scheme of ['light', 'dark'] as const) {
  test(`axe: no serious or critical violation on Rules and on the prompt with its scopes and confirmation (${scheme})`, { skip, timeout: 90_000 }, async () => {
    const p = await signedInPage(browser, dataDir, { colorScheme: scheme });
    const problems: string[] = [];
    const check = async (name: string) => {
      for (const v of (await axe(p).analyze()).violations)
        if (v.impact === 'serious' || v.impact === 'critical')
          problems.push(
            `${name}: ${v.id} (${v.impact}) — ${v.nodes
              .map((n) => n.target.join(' '))
              .slice(0, 3)
              .join(', ')}`,
          );
    };
    try {
      await nav(p, 'Rules').click();
      await ruleRow(p, 'events.create').waitFor();
      await p.getByLabel('Every operation (reads too)').check();
      await check('Rules');
      const run = execute(other, createEvent(`rules: axe ${scheme}`));
      const dialog = approvalDialog(p);
      await dialog.waitFor();
      await dialog.getByRole('radio', { name: 'Every client, until revoked' }).check();
      await armed(p);
      await dialog.getByRole('button', { name: 'Allow for every client, until revoked…' }).click();
      await dialog.getByRole('group', { name: /Every client will run/ }).waitFor();
      await check('prompt over Rules, confirmation open');
      await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
      await run;
    } finally {
      await p.context().close();
    }
    assert.deepEqual(problems, []);
  });
}

test(
  'a call a person said no to is counted as asked and not let through; with one grant left, Revoke all says "the grant"',
  { skip, timeout: 90_000 },
  async () => {
    const control = controlClient(dataDir, fx.server.url);
    await control.call('grants.revokeAll', {});
    await nav(page, 'Rules').click();
    const row = ruleRow(page, 'events.create');
    await row.waitFor();
    const before = (await row.locator('.hits').innerText()).trim();
    const asked = Number(/(\d+) asked/.exec(before)![1]);
    const saidNo = Number(/\((\d+) not let through\)/.exec(before)?.[1] ?? 0);
    const requested = waitForEvent(control, 'approval-requested');
    const run = execute(client, createEvent('rules: said no'));
    const { approval } = await requested;
    await control.call('approvals.decide', { id: approval.id, decision: 'deny', reason: 'not this one' });
    assert.equal((JSON.parse((await run).text) as { error: { code: string } }).error.code, 'airlock_mutation_denied');
    await row
      .getByText(new RegExp(` · ${asked + 1} asked \\(${saidNo + 1} not let through\\) · `))
      .waitFor()
      .catch(async (e: Error) => {
        throw new Error(`${e.message}\nthe row says: ${await row.innerText()} (before: ${before})`);
      });

    const second = waitForEvent(control, 'approval-requested');
    const allowed = execute(client, createEvent('rules: one grant'));
    await control.call('approvals.decide', { id: (await second).approval.id, decision: 'approve', scope: 'session' });
    await allowed;
    await page.getByRole('button', { name: 'Revoke all grants…' }).click();
    await page.getByText('Revoke the grant? Every held call asks a person again.').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
  },
);
