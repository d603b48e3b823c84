// npm run bench:ui — the web UI as a person meets it, in headless Chromium
// against `airlock serve --ui` on the demo API (needs `npm run build` and
// /usr/bin/chromium). Prints:
//  - the initial JavaScript the first screen loads, gzipped (target ≤ 300 KB);
//  - first screen interactive from a cold load: navigation start → the
//    Overview heading rendered and its controls live (target ≤ 500 ms);
//  - approval visible: the broker holds the request (its createdAt) → the
//    dialog shows it in the page (a MutationObserver's Date.now()) (p95 ≤ 150 ms);
//  - decision: the click (Date.now() in the page) → the broker records the
//    decision (the audit record's approval.at) (p95 ≤ 50 ms);
//  - the companion's RSS, idle with the UI open (target ≤ 150 MB).
//   node bench/ui.bench.ts [--rounds N]
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { startUiFixture, loginLink, approvalDialog } from '../test/helpers/browser.ts';
import { execute } from '../test/helpers/mcpClients.ts';
import { controlClient } from '../test/helpers/control.ts';

const args = process.argv.slice(2);
const ROUNDS = Number(args[args.indexOf('--rounds') + 1]) || 30;
const root = resolve(import.meta.dirname, '..');
const pct = (v: number[], p: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))]!;
const fmt = (v: number[]) => `p50 ${pct(v, 50).toFixed(0)} ms, p95 ${pct(v, 95).toFixed(0)} ms (n=${v.length})`;

// 1. Initial JavaScript: the entry script and the modules it preloads.
const uiDir = join(root, 'out', 'renderer');
const html = readFileSync(join(uiDir, 'index.html'), 'utf8');
const initial = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
const gz = initial.reduce((sum, file) => sum + gzipSync(readFileSync(join(uiDir, file))).length, 0);
const lazy = readdirSync(join(uiDir, 'assets')).filter((f) => f.endsWith('.js') && !initial.includes(`assets/${f}`));
console.log(`initial JS        ${(gz / 1024).toFixed(0)} KB gzipped (${initial.length} file(s); ${lazy.length} loaded on demand)`);

const fx = await startUiFixture(['--approval-timeout-ms', '600000'], 'bench-ui');
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${fx.server.child.pid}/status`, 'utf8'))![1]) / 1024;
try {
  // Idle: started, one client connected, nothing run yet.
  await new Promise((r) => setTimeout(r, 2000));
  const idleAtStart = rssMb();
  // 2. First screen, cold: a fresh browser context each time (no cache, no cookie).
  const firstScreen: number[] = [];
  for (let i = 0; i < 5; i++) {
    const context = await fx.browser.newContext();
    const page = await context.newPage();
    await page.goto(await loginLink(fx.dataDir));
    await page.getByRole('heading', { name: /^(Get started|All set)$/, level: 2 }).waitFor();
    firstScreen.push(await page.evaluate(() => performance.now()));
    await context.close();
  }
  console.log(`first screen      ${fmt(firstScreen)} from navigation start to the Overview's controls`);

  // 3 and 4. Approvals: held → visible, click → decided.
  const context = await fx.browser.newContext();
  const page = await context.newPage();
  await page.goto(await loginLink(fx.dataDir));
  await page.getByRole('navigation', { name: 'Airlock' }).waitFor();
  // Runs in the page: records when each approval first appears (a MutationObserver, so no polling delay).
  await page.evaluate(`
    window.seen = {};
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('[data-approval-id]')) window.seen[el.getAttribute('data-approval-id')] ??= Date.now();
    }).observe(document.body, { childList: true, subtree: true, attributes: true });
  `);
  const control = controlClient(fx.dataDir, fx.server.url);
  const visible: number[] = [];
  const decided: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const run = execute(
      fx.client,
      `return (await api.events.create({ body: { title: 'bench ${i}', category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } })).status;`,
    );
    const dialog = approvalDialog(page);
    await dialog.waitFor();
    const [pending] = await control.call('approvals.list', {});
    const id = pending!.id;
    const seenAt = Number(await (await page.waitForFunction(`window.seen[${JSON.stringify(id)}]`)).jsonValue());
    visible.push(seenAt - Date.parse(pending!.createdAt));
    const button = dialog.getByRole('button', { name: 'Allow once' });
    await button.waitFor();
    const clickedAt = await button.evaluate((b: { click(): void }) => {
      const t = Date.now();
      b.click();
      return t;
    });
    await run;
    const page1 = await control.call('audit.query', { kind: 'api', decision: 'approved', limit: 1 });
    decided.push(Date.parse(page1.records[0]!.kind === 'api' ? page1.records[0]!.approval!.at : '') - clickedAt);
    await dialog.waitFor({ state: 'detached' });
  }
  console.log(`approval visible  ${fmt(visible)} (held by the broker → in the page; target p95 ≤ 150 ms)`);
  console.log(`decision          ${fmt(decided)} (click → recorded by the broker; target p95 ≤ 50 ms)`);

  // 5. Idle RSS with the UI open.
  await new Promise((r) => setTimeout(r, 3000));
  console.log(
    `idle RSS          ${idleAtStart.toFixed(0)} MB at start; ${rssMb().toFixed(0)} MB with the UI open after ${ROUNDS} approvals (web mode, demo profile; target ≤ 150 MB)`,
  );
  await context.close();
} finally {
  await fx.close();
}
