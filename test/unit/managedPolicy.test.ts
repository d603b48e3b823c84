// The organisation's managed policy (issue 40 §1): where it is looked for, how it is read (the settings with the
// same checks and messages as settings.json; a broken file fails closed), and what it refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiRefusal, grantRefusal, serverRefusal, managedPolicyPath, managedSettings, readManagedPolicy } from '../../main/core/config/managedPolicy.ts';
import { resolveSettings } from '../../main/core/config/resolveSettings.ts';
import { tempDir } from '../helpers/paths.ts';

function policyFile(t: { after(fn: () => void): void }, content: unknown): string {
  const { dir, cleanup } = tempDir('airlock-managed-');
  t.after(cleanup);
  const file = join(dir, 'managed.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

test("the platform's admin-only place, or AIRLOCK_MANAGED_FILE", () => {
  assert.equal(managedPolicyPath('linux', {}), '/etc/airlock/managed.json');
  assert.equal(managedPolicyPath('darwin', {}), '/Library/Application Support/Airlock/managed.json');
  assert.match(managedPolicyPath('win32', { ProgramData: 'D:\\PD' }), /^D:\\PD.Airlock.managed\.json$/);
  assert.equal(managedPolicyPath('linux', { AIRLOCK_MANAGED_FILE: '/tmp/p.json' }), '/tmp/p.json');
});

test('no file: no policy; a policy: its settings checked as settings.json is, and fixed over every other source', (t) => {
  assert.equal(readManagedPolicy('/nonexistent/airlock/managed.json').state, 'none');
  const file = policyFile(t, { settings: { diagnosticsTools: false, timeoutMs: 10_000 }, approvals: { maxGrantScope: 'session' } });
  const read = readManagedPolicy(file);
  assert.equal(read.state, 'ok', JSON.stringify(read));
  const resolved = resolveSettings({
    flags: { timeoutMs: 60_000 },
    env: { AIRLOCK_DIAGNOSTICS_TOOLS: 'on' },
    file: {},
    defaultDataDir: '/tmp/d',
    managed: managedSettings(read),
  });
  assert.equal(resolved.settings.timeoutMs, 10_000, 'the flag does not win over the organisation');
  assert.equal(resolved.settings.diagnosticsTools, false);
  assert.equal(resolved.sources.timeoutMs, 'managed');
  assert.equal(resolved.sources.diagnosticsTools, 'managed');
  assert.equal(resolved.sources.logLevel, 'default');
});

test('a broken file fails closed (execute off), saying what is wrong in it', (t) => {
  for (const [content, why] of [
    ['{ not json', /not JSON/],
    [{ settings: { timeoutMs: 5 } }, /timeoutMs/],
    [{ settings: { noSuchSetting: 1 } }, /noSuchSetting/],
    [{ apis: { allowOrigins: ['api.example.com'] } }, /is not an origin \(write it as https:\/\/api\.example\.com\)/],
    [{ approvals: { maxGrantScope: 'forever' } }, /maxGrantScope/],
    [{ telemetry: true }, /telemetry|Unrecognized/i],
  ] as const) {
    const read = readManagedPolicy(policyFile(t, content));
    assert.equal(read.state, 'broken', JSON.stringify(content));
    assert.match(read.state === 'broken' ? read.error : '', why);
    assert.deepEqual(managedSettings(read), { killSwitch: true });
  }
});

test('APIs: denied and allowed by profile name and by origin; grants no wider than the policy allows', (t) => {
  const read = readManagedPolicy(
    policyFile(t, { apis: { allowOrigins: ['https://api.example.com/'], denyProfiles: ['github'] }, approvals: { maxGrantScope: 'session' } }),
  );
  assert.equal(read.state, 'ok');
  const policy = read.state === 'ok' ? read.policy : undefined;
  assert.equal(apiRefusal(policy, { profile: 'shop', baseUrl: 'https://api.example.com/v2' }), undefined);
  assert.match(
    apiRefusal(policy, { profile: 'shop', baseUrl: 'https://evil.example.net/v2' }) ?? '',
    /https:\/\/evil\.example\.net are not among the allowed origins \(set by your organisation/,
  );
  assert.match(apiRefusal(policy, { profile: 'github', baseUrl: 'https://api.example.com' }) ?? '', /the API github is denied/);
  assert.equal(apiRefusal(undefined, { profile: 'github', baseUrl: 'https://api.github.com' }), undefined);
  assert.equal(grantRefusal(policy, 'once'), undefined);
  assert.equal(grantRefusal(policy, 'session'), undefined);
  assert.match(grantRefusal(policy, 'always') ?? '', /wider than "session" is not allowed \(set by your organisation/);
  assert.match(grantRefusal(policy, 'client-always') ?? '', /not allowed/);
});

test('MCP servers: by command line (an allow list is allow-only) and by URL origin', (t) => {
  const read = readManagedPolicy(
    policyFile(t, { servers: { allowCommands: ['npx -y @modelcontextprotocol/server-filesystem'], denyUrls: ['https://mcp.evil.example'] } }),
  );
  assert.equal(read.state, 'ok');
  const policy = read.state === 'ok' ? read.policy : undefined;
  const stdio = (command: string, ...args: string[]) => ({ name: 'fs', entry: { transport: 'stdio' as const, command, args } });
  assert.equal(serverRefusal(policy, stdio('npx', '-y', '@modelcontextprotocol/server-filesystem', '/home/me')), undefined);
  assert.match(
    serverRefusal(policy, stdio('npx', '-y', '@modelcontextprotocol/server-filesystem-evil')) ?? '',
    /is not among the allowed ones \(set by your organisation/,
  );
  assert.match(serverRefusal(policy, stdio('node', 'server.js')) ?? '', /not among the allowed/);
  assert.match(
    serverRefusal(policy, { name: 'r', entry: { transport: 'http', url: 'https://mcp.evil.example/mcp' } }) ?? '',
    /servers at https:\/\/mcp\.evil\.example are denied/,
  );
  assert.equal(serverRefusal(policy, { name: 'r', entry: { transport: 'http', url: 'https://mcp.good.example/mcp' } }), undefined);
});
