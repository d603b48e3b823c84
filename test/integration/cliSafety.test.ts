// The safety commands as a person uses them: keys (never on argv, listed by
// fingerprint), audit tail/export/verify (and verify catching a hand edit),
// print-egress-policy, and the fail-closed start-up checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { runCliToEnd, serve } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { tempDir } from '../helpers/paths.ts';

const KEY = 'sk_live_KEYS_CLI_0123456789';

test('keys set reads the key from stdin, ls shows only a fingerprint, rm removes it (file store)', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const common = ['--data-dir', dir, '--secret-store', 'file'];
  const set = await runCliToEnd(['keys', 'set', 'openagenda', ...common], { input: `${KEY}\n` });
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, /Saved the key for openagenda in the file \(sha256:[0-9a-f]{12}\)/);
  assert.match(set.stderr, /plaintext|file store/i); // the opt-in banner
  assert.equal(statSync(join(dir, 'secrets.json')).mode & 0o777, 0o600);
  const ls = await runCliToEnd(['keys', 'ls', '--json', ...common]);
  const rows = JSON.parse(ls.stdout);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].profile, 'openagenda');
  assert.match(rows[0].fingerprint, /^sha256:[0-9a-f]{12}$/);
  assert.ok(!ls.stdout.includes(KEY) && !set.stdout.includes(KEY) && !set.stderr.includes(KEY));
  const rm = await runCliToEnd(['keys', 'rm', 'openagenda', ...common]);
  assert.equal(rm.code, 0);
  assert.equal(JSON.parse((await runCliToEnd(['keys', 'ls', '--json', ...common])).stdout).length, 0);
  assert.equal((await runCliToEnd(['keys', 'rm', 'openagenda', ...common])).code, 1);
});

test('the key is never a flag; an empty key is refused', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const argv = await runCliToEnd(['keys', 'set', 'demo', KEY, '--data-dir', dir, '--secret-store', 'file']);
  assert.equal(argv.code, 2);
  assert.match(argv.stderr, /too many arguments/);
  const empty = await runCliToEnd(['keys', 'set', 'demo', '--data-dir', dir, '--secret-store', 'file'], { input: '' });
  assert.notEqual(empty.code, 0);
  assert.match(empty.stderr, /empty/i);
});

test('without a Secret Service the keychain is an explicit error, never a silent fallback', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const r = await runCliToEnd(['keys', 'set', 'demo', '--data-dir', dir], { input: `${KEY}\n`, env: { DBUS_SESSION_BUS_ADDRESS: undefined } });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /keychain unavailable: /);
  assert.ok(!r.stderr.includes(KEY));
});

test('audit tail, export and verify; verify catches a hand-edited record', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const server = await serve(dir);
  const client = await httpClient(server.mcpUrl, server.token, 'audit-cli-test');
  await execute(client, 'return (await api.events.list({ query: { limit: 1 } })).status');
  await client.callTool({ name: 'search_docs', arguments: { query: 'delete an event' } });
  await client.close();
  await server.stop();

  const tail = await runCliToEnd(['audit', 'tail', '-n', '5', '--data-dir', dir]);
  assert.equal(tail.code, 0, tail.stderr);
  assert.match(tail.stdout, /tool execute ok .* audit-cli-test\/1\.0\.0 http run [0-9a-f]{8}/);
  assert.match(tail.stdout, /api GET http:\/\/127\.0\.0\.1:\d+\/events\?limit=1 → 200 read/);
  assert.match(tail.stdout, /tool search_docs ok/);
  const json = await runCliToEnd(['audit', 'tail', '--json', '--tool', 'execute', '--data-dir', dir]);
  const lines = json.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.ok(lines.every((l) => l.kind === 'api' || l.tool === 'execute'));
  const csv = await runCliToEnd(['audit', 'export', '--format', 'csv', '--data-dir', dir]);
  assert.match(csv.stdout.split('\r\n')[0]!, /seq/);
  const out = join(dir, 'export.jsonl');
  assert.equal((await runCliToEnd(['audit', 'export', '-o', out, '--data-dir', dir])).code, 0);
  assert.equal(statSync(out).mode & 0o777, 0o600);
  assert.ok(readFileSync(out, 'utf8').trim().split('\n').length >= 3);

  const ok = await runCliToEnd(['audit', 'verify', '--json', '--data-dir', dir]);
  assert.equal(ok.code, 0);
  assert.equal(JSON.parse(ok.stdout).ok, true);
  // Someone edits a record in place.
  const db = new DatabaseSync(join(dir, 'audit.sqlite'));
  const row = db.prepare("SELECT seq, body FROM records WHERE kind = 'api' ORDER BY seq LIMIT 1").get() as { seq: number; body: string };
  db.prepare('UPDATE records SET body = ? WHERE seq = ?').run(row.body.replace('"status":200', '"status":500'), row.seq);
  db.close();
  const bad = await runCliToEnd(['audit', 'verify', '--data-dir', dir]);
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, new RegExp(`TAMPERED or damaged at record #${row.seq}`));
});

test('print-egress-policy prints the derived policy with a fingerprint; invalid combinations refuse', async () => {
  const quickjs = await runCliToEnd(['print-egress-policy']);
  assert.equal(quickjs.code, 0, quickjs.stderr);
  const policy = JSON.parse(quickjs.stdout);
  assert.equal(policy.engine, 'quickjs');
  assert.deepEqual(policy.allow, []);
  assert.match(policy.fingerprint, /^sha256:[0-9a-f]{64}$/);
  const again = JSON.parse((await runCliToEnd(['print-egress-policy'])).stdout);
  assert.equal(again.fingerprint, policy.fingerprint);
  const deno = JSON.parse((await runCliToEnd(['print-egress-policy', '--engine', 'deno'])).stdout);
  assert.equal(deno.allow[0].host, '127.0.0.1');
  assert.notEqual(deno.fingerprint, policy.fingerprint);
  const invalid = await runCliToEnd(['print-egress-policy', '--engine', 'node', '--egress', 'executor']);
  assert.equal(invalid.code, 2);
  assert.match(invalid.stderr, /cannot scope network egress/);
});

test('serve refuses an invalid engine × egress combination before starting anything', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const r = await runCliToEnd(['serve', '--port', '0', '--data-dir', dir, '--engine', 'quickjs', '--egress', 'none']);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /not a valid combination/);
  const deno = await runCliToEnd(['serve', '--port', '0', '--data-dir', dir, '--engine', 'deno', '--egress', 'none']);
  assert.equal(deno.code, 2);
  assert.match(deno.stderr, /--allow-unrestricted-egress/);
  // Node with no boundary is treated as Deno with none (issue 39 §10).
  const node = await runCliToEnd(['serve', '--port', '0', '--data-dir', dir, '--engine', 'node', '--egress', 'none']);
  assert.equal(node.code, 2);
  assert.match(node.stderr, /engine node with egress none .*--allow-unrestricted-egress/);
});
