// `airlock servers` (issue 20, first part), through the real command: a stdio
// server added with the variables it may get, its secret stored in the key
// store (never on the command line, never in servers.json), `show` starting
// it with exactly that environment and listing its tools, bad entries refused
// with the flag to fix, and removal taking the secret with it. API keys and
// servers' secrets do not mix in `keys ls`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliToEnd } from '../helpers/processes.ts';
import { ROOT, tempDir } from '../helpers/paths.ts';

const SERVER = join(ROOT, 'test', 'fixtures', 'upstream', 'testServer.ts');
const T = { timeout: 120_000 };

test('a stdio server is added, given its secret, shown with its tools, and removed with its secret', T, async (t) => {
  const { dir, cleanup } = tempDir('airlock-servers-cli-');
  t.after(cleanup);
  const cli = (args: string[], input?: string) =>
    runCliToEnd([...args, '--data-dir', dir, '--secret-store', 'file'], { timeoutMs: 60_000, ...(input ? { input } : {}) });

  const added = await runCliToEnd(
    ['servers', 'add', 'misbehaving', '--data-dir', dir, '--env', 'HOME', '--secret', 'GITHUB_TOKEN', '--', process.execPath, SERVER],
    {
      timeoutMs: 30_000,
    },
  );
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /Added MCP server misbehaving \(stdio: /);
  assert.match(added.stdout, /airlock servers secret misbehaving GITHUB_TOKEN/);

  const secret = await cli(['servers', 'secret', 'misbehaving', 'GITHUB_TOKEN'], 'ghp_0123456789abcdefSECRET\n');
  assert.equal(secret.code, 0, secret.stderr);
  assert.doesNotMatch(readFileSync(join(dir, 'servers.json'), 'utf8'), /ghp_/, 'never in servers.json');

  const shown = await cli(['servers', 'show', 'misbehaving', '--json']);
  assert.equal(shown.code, 0, shown.stderr);
  assert.doesNotMatch(shown.stderr, /has no GITHUB_TOKEN/, 'started with its secret');
  const { review } = JSON.parse(shown.stdout) as { review: { state: string; tools: { name: string }[] } };
  const { tools } = review;
  assert.equal(review.state, 'unreviewed', 'nothing of it runs yet');
  assert.deepEqual(tools.map((x) => x.name).sort(), [
    'big',
    'crash',
    'delete_notes',
    'echo',
    'env',
    'flood',
    'grandchild',
    'peek',
    'rewrite',
    'slow',
    'write_note',
  ]);
  assert.doesNotMatch(shown.stdout + shown.stderr, /ghp_0123456789/, 'the secret is in no output');

  // API keys and servers' secrets share the store but not the listing.
  const keys = await cli(['keys', 'ls', '--json']);
  assert.deepEqual(JSON.parse(keys.stdout), []);

  const removed = await cli(['servers', 'remove', 'misbehaving']);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /Removed misbehaving and its secrets/);
  assert.doesNotMatch(readFileSync(join(dir, 'secrets.json'), 'utf8'), /mcp-server:misbehaving/);
  assert.match((await runCliToEnd(['servers', 'list', '--data-dir', dir], { timeoutMs: 30_000 })).stdout, /No MCP server yet/);
});

test('bad entries are refused with the flag to fix and exit 2; a secret the entry does not declare is refused', T, async (t) => {
  const { dir, cleanup } = tempDir('airlock-servers-cli-');
  t.after(cleanup);
  const cli = (args: readonly string[]) => runCliToEnd([...args.slice(0, 2), '--data-dir', dir, ...args.slice(2)], { timeoutMs: 30_000 });
  for (const [args, message] of [
    [['servers', 'add', 'x'], /no server given: airlock servers add x -- COMMAND/],
    [['servers', 'add', 'x', '--', '../bin/sh'], /climbs out of its folder/],
    [['servers', 'add', 'x', '--url', 'https://mcp.example.test/mcp', '--env', 'HOME'], /--env and --secret are for a stdio server/],
    [['servers', 'add', 'x', '--header', 'Authorization', '--', 'npx', 'server'], /--header and --allow-private-network are for an HTTP server/],
    [['servers', 'add', 'Bad', '--', 'npx'], /'Bad' is not a server name/],
    [['servers', 'add', 'x', '--env', '1BAD', '--', 'npx'], /"env\.0" is not an environment variable name/],
  ] as const) {
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
  }
  assert.equal((await cli(['servers', 'add', 'x', '--', 'npx', 'some-server'])).code, 0);
  const undeclared = await runCliToEnd(['servers', 'secret', 'x', 'TOKEN', '--data-dir', dir, '--secret-store', 'file'], { input: 'v\n', timeoutMs: 30_000 });
  assert.equal(undeclared.code, 2);
  assert.match(undeclared.stderr, /TOKEN is not a secret of x \(its secrets: none\)/);
});

test('a remote server for machines signs in as its OAuth client: the client id in the entry, its secret only in the key store', T, async (t) => {
  const { dir, cleanup } = tempDir('airlock-servers-cli-');
  t.after(cleanup);
  const added = await runCliToEnd(
    [
      'servers',
      'add',
      'm2m',
      '--url',
      'https://mcp.example.com/mcp',
      '--client-id',
      'airlock-agent',
      '--client-auth',
      'private-key-jwt',
      '--client-alg',
      'ES256',
      '--data-dir',
      dir,
    ],
    { timeoutMs: 30_000 },
  );
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /airlock servers secret m2m oauth-client/);
  const entry = (JSON.parse(readFileSync(join(dir, 'servers.json'), 'utf8')) as { servers: { m2m: { clientCredentials: unknown } } }).servers.m2m;
  assert.deepEqual(entry.clientCredentials, { clientId: 'airlock-agent', auth: 'private-key-jwt', algorithm: 'ES256' });
  const secret = await runCliToEnd(['servers', 'secret', 'm2m', 'oauth-client', '--data-dir', dir, '--secret-store', 'file'], {
    timeoutMs: 30_000,
    input: '-----BEGIN PRIVATE KEY----- MIGHAgEAMBMGByqGSM49AgEGCCqGSM49 -----END PRIVATE KEY-----\n',
  });
  assert.equal(secret.code, 0, secret.stderr);
  assert.doesNotMatch(readFileSync(join(dir, 'servers.json'), 'utf8'), /PRIVATE KEY/);
  const wrong = await runCliToEnd(['servers', 'add', 'x', '--client-id', 'a', '--data-dir', dir, '--', '/bin/true'], { timeoutMs: 30_000 });
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /--client-id is for a remote server \(--url\)/);
});

test('a client ID metadata document: printed for the URL it will be published at, which the entry then names', T, async (t) => {
  const { dir, cleanup } = tempDir('airlock-servers-cli-');
  t.after(cleanup);
  const printed = await runCliToEnd(['servers', 'client-metadata', 'https://example.org/airlock/client.json'], { timeoutMs: 30_000 });
  assert.equal(printed.code, 0, printed.stderr);
  const document = JSON.parse(printed.stdout) as Record<string, unknown>;
  assert.equal(document.client_id, 'https://example.org/airlock/client.json');
  assert.deepEqual(document.redirect_uris, ['http://127.0.0.1:33418/callback']);
  assert.equal(document.token_endpoint_auth_method, 'none');
  for (const url of ['http://example.org/client.json', 'https://example.org/', 'not a url']) {
    const refused = await runCliToEnd(['servers', 'client-metadata', url], { timeoutMs: 30_000 });
    assert.equal(refused.code, 2, url);
    assert.match(refused.stderr, /cannot be a client_id: it must be an HTTPS URL with a path/);
  }

  const add = (extra: string[]) =>
    runCliToEnd(['servers', 'add', 'remote', '--data-dir', dir, '--url', 'https://mcp.example.com/mcp', ...extra], { timeoutMs: 30_000 });
  const added = await add(['--client-metadata-url', 'https://example.org/airlock/client.json']);
  assert.equal(added.code, 0, added.stderr);
  const entry = (JSON.parse(readFileSync(join(dir, 'servers.json'), 'utf8')) as { servers: { remote: { clientMetadataUrl?: string } } }).servers.remote;
  assert.equal(entry.clientMetadataUrl, 'https://example.org/airlock/client.json');
  const machine = await add(['--client-id', 'agent', '--client-metadata-url', 'https://example.org/airlock/client.json']);
  assert.equal(machine.code, 2);
  assert.match(machine.stderr, /--client-metadata-url is for a remote server a person signs in to/);
});

test('cross-app access: the identity provider in the entry, the client secret and the ID token only in the key store', T, async (t) => {
  const { dir, cleanup } = tempDir('airlock-servers-cli-');
  t.after(cleanup);
  const add = (extra: string[]) =>
    runCliToEnd(['servers', 'add', 'enterprise', '--data-dir', dir, '--url', 'https://mcp.example.com/mcp', ...extra], { timeoutMs: 30_000 });
  const idp = ['--idp-token-endpoint', 'https://idp.example.com/oauth2/token', '--idp-client-id', 'airlock-at-idp'];
  const added = await add(['--client-id', 'airlock-at-as', ...idp]);
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /its oauth-client: airlock servers secret enterprise oauth-client/);
  assert.match(added.stdout, /its idp-id-token: airlock servers secret enterprise idp-id-token/);
  const entry = (JSON.parse(readFileSync(join(dir, 'servers.json'), 'utf8')) as { servers: { enterprise: { crossApp?: unknown } } }).servers.enterprise;
  assert.deepEqual(entry.crossApp, { clientId: 'airlock-at-as', idpTokenEndpoint: 'https://idp.example.com/oauth2/token', idpClientId: 'airlock-at-idp' });
  const token = await runCliToEnd(['servers', 'secret', 'enterprise', 'idp-id-token', '--data-dir', dir, '--secret-store', 'file'], {
    timeoutMs: 30_000,
    input: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJwZXJzb24ifQ.c2lnbmF0dXJl\n',
  });
  assert.equal(token.code, 0, token.stderr);
  assert.doesNotMatch(readFileSync(join(dir, 'servers.json'), 'utf8'), /eyJhbGci/);
  for (const [extra, message] of [
    [['--idp-token-endpoint', 'https://idp.example.com/oauth2/token', '--client-id', 'a'], /--idp-token-endpoint and --idp-client-id go together/],
    [idp, /cross-app access signs in as --client-id with its secret/],
    [['--client-id', 'a', '--client-auth', 'private-key-jwt', ...idp], /without --client-auth or --client-alg/],
  ] as const) {
    const refused = await add([...extra]);
    assert.equal(refused.code, 2, extra.join(' '));
    assert.match(refused.stderr, message);
  }
});
