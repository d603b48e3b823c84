// The Logs screen's filters as a person relies on them: the source filter
// lists exactly the sources the lines carry; the run-id filter shows every
// line of one run — its console output, the gate's decision on each API
// call, its approval request and how it ended — and nothing of another run;
// Pause says how many lines it holds back. The saved (filtered) log is what
// is read, so every line counts, not only the ones on screen. axe in light
// and dark; screenshots in /tmp/logs*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { execute } from '../helpers/mcpClients.ts';
import { startUiFixture, type UiFixture, signedInPage, nav, chromiumMissing, axeLightAndDark } from '../helpers/browser.ts';

const skip = chromiumMissing();
let fx: UiFixture;
let page: Page;

const createEvent = (title: string) =>
  `const r = await api.events.create({ body: { title: ${JSON.stringify(title)}, category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } });`;

/** The filtered log as Save writes it (every kept line, plain text). */
async function savedLog(): Promise<string[]> {
  const downloaded = page.waitForEvent('download', { timeout: 20_000 });
  await page.getByRole('button', { name: 'Save…' }).click();
  return readFileSync(await (await downloaded).path(), 'utf8')
    .split('\n')
    .filter(Boolean);
}
/** Saves the log until a line matches (lines arrive in batches), within a deadline: again each time the live log changes. */
async function savedLogWith(pattern: RegExp, deadlineMs = 15_000): Promise<string[]> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const lines = await savedLog();
    if (lines.some((l) => pattern.test(l))) return lines;
    if (Date.now() > end) assert.fail(`no line matches ${pattern} in:\n${lines.slice(-30).join('\n')}`);
    // Save again once the live log shows something new (the terminal's screen-reader rows change), not after a guess.
    const shown = await page.getByLabel('Live log').textContent();
    await page
      .waitForFunction((before) => (globalThis as any).document.querySelector('[aria-label="Live log"]')?.textContent !== before, shown, {
        timeout: Math.max(1, end - Date.now()),
      })
      .catch(() => undefined);
  }
}
const sourceOf = (line: string) => /^\S+ \w+\s+\[([^\]]+)\]/.exec(line)?.[1];
const select = () => page.getByLabel('Source');
const sourceOptions = async () =>
  (await Promise.all((await select().locator('option').all()).map((o) => o.getAttribute('value')))).filter((v): v is string => Boolean(v));

before(async () => {
  if (skip) return;
  // A short approval timeout: the mutation's approval ends (timed out) on its own.
  fx = await startUiFixture(['--approval-timeout-ms', '1500'], 'e2e-logs');
  page = await signedInPage(fx.browser, fx.dataDir);
  await nav(page, 'Logs').click();
  await page.getByRole('heading', { name: 'Logs', level: 1 }).waitFor();
});

after(async () => {
  await fx?.close();
});

test('the run-id filter shows every line of a run: console output, the gate, the approval, and nothing of another run', { skip, timeout: 90_000 }, async () => {
  await execute(fx.client, `console.log('other run marker'); return 1;`);
  const result = await execute(
    fx.client,
    `console.log('run marker'); await api.events.list({ query: { limit: 1 } }); ${createEvent('logs e2e')} return r.error ? r.error.message : 'created';`,
  );
  assert.match(result.text, /not approved|timed out/);
  const all = await savedLogWith(/\[approvals\].*timeout/);
  const marker = all.find((l) => /\[sandbox\].*run marker/.test(l) && !/other run marker/.test(l));
  assert.ok(marker, 'the console line is in the log');
  const runId = /\(run ([0-9a-f-]{36})\)/.exec(marker)![1]!;

  // The first characters of the id are enough (a line on screen shows eight).
  await page.getByLabel('Run id').fill(runId.slice(0, 8));
  const lines = await savedLogWith(/\[approvals\].*timeout/);
  assert.ok(
    lines.every((l) => l.includes(`(run ${runId})`)),
    lines.join('\n'),
  );
  const has = (what: string, pattern: RegExp) =>
    assert.ok(
      lines.some((l) => pattern.test(l)),
      `${what} is missing from the run's lines:\n${lines.join('\n')}`,
    );
  has('the console output', /\[sandbox\] \(run [^)]+\) run marker/);
  // Gate lines carry the path, not the query (every client can read the log through server_log).
  has("the gate's read", /\[gate\] .*events\.list: read GET \/events → 200$/);
  has("the gate's decision on the mutation", /\[gate\] .*events\.create: denied POST/);
  has('the approval request', /\[approvals\] .*approval apr_\w+ requested: .*POST/);
  has('how the approval ended', /\[approvals\] .*approval apr_\w+ timeout: timed out/);
  has('the end of the run', /\[execute\] .*run [0-9a-f]{8} ok/);
  assert.ok(!lines.some((l) => l.includes('other run marker')), 'nothing of the other run');
  await page.screenshot({ path: '/tmp/logs-run.png' });
  await page.getByLabel('Run id').fill('');
});

test('the source filter lists exactly the sources the lines carry, and keeps only that source', { skip, timeout: 60_000 }, async () => {
  const lines = await savedLog();
  const carried = [...new Set(lines.map(sourceOf).filter((s): s is string => Boolean(s)))].sort();
  // Lines may arrive between the two reads: the options hold at least what was saved, and nothing no line carries.
  const options = await sourceOptions();
  assert.deepEqual(
    carried.filter((s) => !options.includes(s)),
    [],
    `options: ${options.join(', ')}`,
  );
  const after = [...new Set((await savedLog()).map(sourceOf).filter((s): s is string => Boolean(s)))];
  assert.deepEqual(
    options.filter((o) => !after.includes(o)),
    [],
    'an option no line carries',
  );
  for (const s of ['gate', 'approvals', 'sandbox', 'execute']) assert.ok(options.includes(s), `${s} is offered`);
  assert.ok(!options.includes('ui') || after.includes('ui'));
  await select().selectOption('gate');
  const gate = await savedLog();
  assert.ok(gate.length > 0);
  assert.ok(
    gate.every((l) => sourceOf(l) === 'gate'),
    gate.join('\n'),
  );
  await select().selectOption('');
});

test('Pause says how many lines it holds back, and Resume shows them', { skip, timeout: 60_000 }, async () => {
  await select().selectOption('sandbox');
  await page.getByRole('button', { name: 'Pause' }).click();
  const resume = page.getByRole('button', { name: /^Resume/ });
  assert.equal(await resume.innerText(), 'Resume (0 lines held back)');
  await execute(fx.client, `console.log('held 1'); console.log('held 2'); console.log('held 3'); return 1;`);
  await page.getByRole('button', { name: 'Resume (3 lines held back)' }).waitFor({ timeout: 10_000 });
  const note = await page.locator('.paused-note').innerText();
  assert.match(note, /^Paused: new lines are kept and shown when you resume\. 3 lines held back \(and \d+ lines? the filters hide\)\.$/);
  assert.ok(!(await savedLog()).some((l) => l.includes('held 1')), 'not shown while paused');
  await page.screenshot({ path: '/tmp/logs-paused.png' });
  await resume.click();
  const lines = await savedLogWith(/held 3/);
  assert.deepEqual(
    lines.filter((l) => /held \d/.test(l)).map((l) => l.replace(/^.*held/, 'held')),
    ['held 1', 'held 2', 'held 3'],
    'each once, in order',
  );
  await page.getByRole('button', { name: 'Pause' }).waitFor();
  await select().selectOption('');
});

test('no axe violation on the Logs screen, light and dark', { skip, timeout: 120_000 }, async () => {
  assert.deepEqual(await axeLightAndDark(page, (scheme) => page.screenshot({ path: `/tmp/logs-${scheme}.png` })), []);
});
