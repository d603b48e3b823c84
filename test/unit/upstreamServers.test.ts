// Other MCP servers behind Airlock (issue 20), the first part: their entries
// (a command or a URL, what the child may be given), the file that keeps
// them, and the environment a stdio server is started with — empty but for
// what its entry names, PATH as a login shell gives it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ServerStore } from '../../main/core/upstream/serverStore.ts';
import { commandProblem, secretAccount, DEFAULT_TIMEOUT_MS, type ServerEntry } from '../../main/core/upstream/serverEntry.ts';
import { childEnvironment, loginShellPath } from '../../main/core/upstream/childEnvironment.ts';
import { tempDir } from '../helpers/paths.ts';

const T = { timeout: 15_000 };

function store(t: { after(fn: () => void): void }) {
  const { dir, cleanup } = tempDir('airlock-servers-');
  t.after(cleanup);
  const file = join(dir, 'servers.json');
  return { file, store: new ServerStore(file) };
}

const filesystem = { transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] } as unknown as ServerEntry;
const remote = { transport: 'http', url: 'https://mcp.example.test/mcp', headers: ['Authorization'] } as unknown as ServerEntry;

test('servers are kept in servers.json (0600), in name order, with their defaults', T, async (t) => {
  const s = store(t);
  await s.store.add('remote', remote);
  await s.store.add('fs', filesystem);
  assert.deepEqual(
    s.store.list().map((x) => x.name),
    ['fs', 'remote'],
  );
  const fs = s.store.get('fs')!;
  assert.deepEqual(fs, { ...filesystem, env: [], secrets: [], enabled: true, timeoutMs: DEFAULT_TIMEOUT_MS });
  assert.equal((s.store.get('remote') as { allowPrivateNetwork: boolean }).allowPrivateNetwork, false);
  if (process.platform !== 'win32') assert.equal(statSync(s.file).mode & 0o777, 0o600);
  assert.equal((JSON.parse(readFileSync(s.file, 'utf8')) as { version: number }).version, 1);
});

test('a name taken is refused with what to do; replace, enable, disable and remove', T, async (t) => {
  const s = store(t);
  await s.store.add('fs', filesystem);
  await assert.rejects(s.store.add('fs', remote), /a server named 'fs' exists already.*|exists already/);
  await s.store.add('fs', remote, { replace: true });
  assert.equal(s.store.get('fs')!.transport, 'http');
  assert.equal(await s.store.setEnabled('fs', false), true);
  assert.equal(s.store.get('fs')!.enabled, false);
  assert.equal(await s.store.setEnabled('nope', true), false);
  assert.equal(await s.store.remove('fs'), true);
  assert.equal(await s.store.remove('fs'), false);
  assert.deepEqual(s.store.list(), []);
});

test('bad entries are refused, saying which field and why; nothing is written', T, async (t) => {
  const s = store(t);
  for (const [name, entry, message] of [
    ['Bad Name', filesystem, /not a server name/],
    ['fs', { ...filesystem, command: '../../bin/sh' }, /climbs out of its folder/],
    ['fs', { ...filesystem, env: ['1NOPE'] }, /"env.0" is not an environment variable name/],
    ['fs', { ...filesystem, secrets: ['A B'] }, /"secrets.0"/],
    ['r', { ...remote, url: 'file:///etc/passwd' }, /"url"/],
    ['r', { ...remote, headers: ['Bad Header:'] }, /not an HTTP header name/],
    ['fs', { ...filesystem, surprise: true }, /surprise|Unrecognized/],
    ['fs', { ...filesystem, env: ['AIRLOCK_API_KEY'] }, /one of Airlock's own \(AIRLOCK_\*\), never passed to a server/],
    ['fs', { ...filesystem, secrets: ['PATH'] }, /cannot be PATH/],
  ] as const) {
    await assert.rejects(s.store.add(name, entry as unknown as ServerEntry), message, `${name}: ${JSON.stringify(entry)}`);
  }
  assert.deepEqual(s.store.list(), []);
});

test('a servers.json that cannot be read is named with what is wrong, and never overwritten', T, async (t) => {
  const s = store(t);
  writeFileSync(s.file, '{"version":1,"servers":{"fs":{"transport":"stdio"}}}');
  assert.throws(
    () => s.store.list(),
    (e: Error) => e.message.includes(s.file) && /servers\.fs\.command/.test(e.message),
  );
  await assert.rejects(s.store.add('other', filesystem), /servers\.fs\.command/);
  assert.equal(readFileSync(s.file, 'utf8'), '{"version":1,"servers":{"fs":{"transport":"stdio"}}}', 'left as it was');
  writeFileSync(s.file, '{ not json');
  assert.throws(() => s.store.list(), /not valid JSON/);
});

test('a command may be a name found on PATH or an absolute path, never a relative path or one that climbs with ..', () => {
  for (const ok of ['npx', 'uvx', '/usr/local/bin/mcp-server', 'C:\\Tools\\server.exe']) assert.equal(commandProblem(ok), undefined, ok);
  for (const bad of ['../server', 'tools/../../bin/sh', '..\\..\\cmd.exe', '/usr/../bin/sh', './server', 'bin/server', '', ' npx', 'a\0b'])
    assert.ok(commandProblem(bad), JSON.stringify(bad));
});

test("a stdio server's environment holds only PATH, the variables its entry passes, and its secrets", () => {
  const parent = { PATH: '/usr/bin', HOME: '/home/a', AIRLOCK_API_KEY: 'sk_live_do_not_pass', GITHUB_TOKEN: 'ghp_parent', LANG: 'C.UTF-8' };
  const env = childEnvironment({
    pass: ['HOME', 'LANG', 'NOT_SET'],
    secrets: { GITHUB_TOKEN: 'ghp_from_keychain' },
    parent,
    loginPath: '/opt/homebrew/bin:/usr/bin',
  });
  assert.deepEqual(env, { PATH: '/opt/homebrew/bin:/usr/bin', HOME: '/home/a', LANG: 'C.UTF-8', GITHUB_TOKEN: 'ghp_from_keychain' });
  assert.equal(JSON.stringify(env).includes('sk_live'), false, "Airlock's own key never reaches a server");
  // No login shell PATH: the parent's.
  assert.deepEqual(childEnvironment({ pass: [], secrets: {}, parent }), { PATH: '/usr/bin' });
  assert.equal(secretAccount('github', 'GITHUB_TOKEN'), 'mcp-server:github:GITHUB_TOKEN');
});

test(
  'PATH as a login shell gives it: read past what a profile prints; no shell, a failing or a hanging one gives none',
  { timeout: 20_000, skip: process.platform === 'win32' },
  async (t) => {
    const { dir, cleanup } = tempDir('airlock-shell-');
    t.after(cleanup);
    const noisy = join(dir, 'noisy-shell');
    writeFileSync(noisy, '#!/bin/sh\necho "Welcome! fortune of the day"\nPATH=/opt/tools/bin:/usr/bin\nexport PATH\neval "$2"\n');
    chmodSync(noisy, 0o755);
    assert.equal(await loginShellPath({ shell: noisy }), '/opt/tools/bin:/usr/bin');
    assert.equal(await loginShellPath({ shell: join(dir, 'no-such-shell') }), undefined);
    const failing = join(dir, 'failing-shell');
    writeFileSync(failing, '#!/bin/sh\nexit 3\n');
    chmodSync(failing, 0o755);
    assert.equal(await loginShellPath({ shell: failing }), undefined);
    // An interactive shell ignores SIGTERM; a profile may hang, or ask a question.
    const hanging = join(dir, 'hanging-shell');
    writeFileSync(hanging, "#!/bin/sh\ntrap '' TERM\nsleep 30\n");
    chmodSync(hanging, 0o755);
    const started = Date.now();
    assert.equal(await loginShellPath({ shell: hanging, timeoutMs: 300 }), undefined);
    assert.ok(Date.now() - started < 5000, 'given up on at its deadline');
    const asking = join(dir, 'asking-shell');
    writeFileSync(asking, '#!/bin/sh\necho "Update now? [y/N]"\nread -r answer\nPATH=/usr/bin:/bin\nexport PATH\neval "$2"\n');
    chmodSync(asking, 0o755);
    assert.equal(await loginShellPath({ shell: asking, timeoutMs: 5000 }), '/usr/bin:/bin', 'its question gets end-of-input, not the terminal');
    // A shell that does not expand "$PATH" (not POSIX) gives no PATH.
    const literal = join(dir, 'literal-shell');
    writeFileSync(literal, "#!/bin/sh\nprintf '\\n__AIRLOCK_PATH__$PATH__AIRLOCK_PATH__\\n'\n");
    chmodSync(literal, 0o755);
    assert.equal(await loginShellPath({ shell: literal }), undefined);
  },
);
