// The control API's status, built from the parts it reads (ViewSource) only:
// the engine state, the HTTP endpoint only when the host serves one, the
// desktop section only in the desktop app, and the command that starts a
// headless companion again only outside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statusOf, type ViewSource } from '../../../main/core/runtime/companionViews.ts';
import type { Host } from '../../../main/core/runtime/services.ts';
import { ApprovalBroker } from '../../../main/core/approvals/approvalBroker.ts';
import { GrantStore } from '../../../main/core/approvals/grantStore.ts';
import { SessionRegistry } from '../../../main/core/mcp/sessionRegistry.ts';
import { createMemoryStore } from '../../../main/core/secrets/memoryStore.ts';
import { statusSchema } from '../../../contract/status.ts';
import { tempDir } from '../../helpers/paths.ts';
import {
  companionInfo,
  fakeCredentials,
  fakeEngines,
  fakeKeys,
  servedApisOf,
  fakeRuns,
  liveSettings,
  mutationRequest,
  shopApi,
} from '../../helpers/handlerServices.ts';

const T = { timeout: 10_000 };
const MCP_URL = 'http://127.0.0.1:43121/mcp';

async function setup(
  t: { after(fn: () => void): void },
  host: Host = {},
  engine: Parameters<typeof fakeEngines>[0] = { engine: 'quickjs', network: 'executor' },
) {
  const { dir, cleanup } = tempDir('airlock-status-');
  t.after(cleanup);
  const broker = new ApprovalBroker({ timeoutMs: 600_000, approversAvailable: () => true, noApproverMessage: 'no one to ask', grants: new GrantStore() });
  const source: ViewSource = {
    info: companionInfo(dir, new Date(Date.now() - 90_000)),
    settings: liveSettings(dir),
    apis: await servedApisOf(shopApi()),
    engines: fakeEngines(engine),
    runs: fakeRuns(6),
    broker,
    sessions: new SessionRegistry(),
    keys: fakeKeys(createMemoryStore(), fakeCredentials({ source: 'keychain', fingerprint: 'sha256:0123456789ab' })),
    host,
  };
  /** The status as statusOf gives it, checked against the contract. */
  const status = () => {
    const raw = statusOf(source);
    statusSchema.parse(raw);
    return raw;
  };
  return { source, broker, status };
}

/** Runs `fn` as if this process had been started with `args` (process.argv after node and the script). */
function withArgs<T>(args: string[], fn: () => T): T {
  const saved = process.argv;
  process.argv = [saved[0]!, saved[1]!, ...args];
  try {
    return fn();
  } finally {
    process.argv = saved;
  }
}

test('status reports the engine state in effect: engine, egress, boundary, and the banner only when there is one', T, async (t) => {
  const bounded = (await setup(t)).status();
  assert.equal(bounded.engine, 'quickjs');
  assert.equal(bounded.egress, 'executor');
  assert.equal(bounded.boundary, 'quickjs with egress executor (test)');
  assert.ok(!('banner' in bounded));

  const s = await setup(t, {}, { engine: 'node', network: 'none', banner: 'WARNING: unbounded' });
  const status = s.status();
  assert.deepEqual([status.engine, status.egress, status.banner], ['node', 'none', 'WARNING: unbounded']);
});

test('status reads the engine when asked: a switch shows at the next status', T, async (t) => {
  const s = await setup(t);
  await s.source.engines.switchTo({ engine: 'deno', network: 'wrapper' });
  assert.deepEqual([s.status().engine, s.status().egress], ['deno', 'wrapper']);
});

test('endpoints.http and its token file only when the host serves MCP over HTTP', T, async (t) => {
  const none = (await setup(t)).status();
  assert.deepEqual(Object.keys(none.endpoints), ['stdio']);
  const notYet = (await setup(t, { mcpUrl: () => undefined })).status();
  assert.deepEqual(Object.keys(notYet.endpoints), ['stdio']);
  const s = await setup(t, { mcpUrl: () => MCP_URL });
  const served = s.status();
  assert.equal(served.endpoints.http, MCP_URL);
  assert.equal(served.endpoints.tokenFile, s.source.info.paths.mcpToken);
  assert.match(served.endpoints.stdio, /stdio/);
});

test('desktop only in the desktop app, and the start command only outside it', T, async (t) => {
  const headless = await setup(t, { mcpUrl: () => MCP_URL });
  const status = withArgs(['serve', '--port', '0', '--ui'], () => headless.status());
  assert.equal(status.desktop, undefined);
  assert.equal(status.startCommand, 'airlock serve --ui --port 43121', 'the same flags, pinned to the port it got');

  const desktop = await setup(t, { mcpUrl: () => MCP_URL, desktop: () => ({ notifications: 'unsupported', detail: 'no notification daemon' }) });
  const app = withArgs(['serve', '--port', '0'], () => desktop.status());
  assert.deepEqual(app.desktop, { notifications: 'unsupported', detail: 'no notification daemon' });
  assert.ok(!('startCommand' in app));

  // Not `airlock serve` (stdio, a test runner): nothing to start again.
  assert.ok(!('startCommand' in withArgs(['stdio'], () => headless.status())));
});

test('status counts what is waiting and running, and shows the profile, the API and the key without the key', T, async (t) => {
  const s = await setup(t);
  s.source.settings.set({ killSwitch: true });
  s.source.sessions.open({ key: 'http:s1', transport: 'http', sessionId: 's1', clientName: 'claude-code' });
  const release = await s.source.runs.caps.acquire('http:s1');
  const waiting = s.broker.request(mutationRequest({ bodyPreview: '', script: '', rule: 'policy ask' }));
  const status = s.status();
  assert.equal(status.killSwitch, true);
  assert.equal(status.pendingApprovals, 1);
  assert.deepEqual(status.runs, { active: 1, queued: 0, maxConcurrent: 6 });
  assert.deepEqual(
    status.sessions.map((x) => x.clientName),
    ['claude-code'],
  );
  assert.equal(status.profile, 'shop');
  assert.deepEqual(status.api, {
    title: 'Shop',
    version: '2.1',
    operations: 5,
    baseUrl: 'https://shop.example.test/v1',
    spec: 'https://shop.example.test/openapi.json',
    auth: 'bearer',
  });
  assert.deepEqual(status.credential, { source: 'keychain', fingerprint: 'sha256:0123456789ab' });
  assert.equal(status.dataDir, s.source.info.paths.root);
  assert.ok(status.uptimeSeconds >= 90);
  release();
  s.broker.denyAll(undefined, 'test');
  assert.equal((await waiting).approved, false);
  assert.equal(s.status().pendingApprovals, 0);
});

test('status says when each client was last heard from: any request moves it, not only a tool call (issue 36 §16)', () => {
  let now = Date.parse('2030-01-01T10:00:00Z');
  const registry = new SessionRegistry(() => new Date(now));
  registry.open({ key: 'http:s1', transport: 'http', sessionId: 's1', clientName: 'cursor' });
  now += 90_000;
  registry.seen('http:s1');
  registry.seen('http:unknown');
  assert.deepEqual(
    registry.list().map((x) => [x.key, x.connectedAt, x.lastSeenAt]),
    [['http:s1', '2030-01-01T10:00:00.000Z', '2030-01-01T10:01:30.000Z']],
  );
});
