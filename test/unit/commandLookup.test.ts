// A stdio server whose command is not there (issue 36 §12): found as the
// server would be started — an absolute path as it is, a name on PATH — and
// `airlock servers add` warns at once (and adds it all the same: it may be
// installed next); the Servers list says it too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findCommand, missingCommandWarning } from '../../main/core/upstream/commandLookup.ts';
import { runCliToEnd } from '../helpers/processes.ts';
import { tempDir } from '../helpers/paths.ts';

test('a command is found on PATH or at its absolute path, only when it is an executable file', (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const bin = join(dir, 'bin');
  mkdirSync(join(bin, 'a-directory'), { recursive: true });
  writeFileSync(join(bin, 'tool'), '#!/bin/sh\n');
  chmodSync(join(bin, 'tool'), 0o755);
  writeFileSync(join(bin, 'not-executable'), '');
  const path = ['/nonexistent', bin].join(':');
  assert.equal(findCommand('tool', path, { platform: 'linux' }), join(bin, 'tool'));
  assert.equal(findCommand(join(bin, 'tool'), undefined, { platform: 'linux' }), join(bin, 'tool'));
  assert.equal(findCommand('not-executable', path, { platform: 'linux' }), undefined);
  assert.equal(findCommand('a-directory', path, { platform: 'linux' }), undefined);
  assert.equal(findCommand('tool', undefined, { platform: 'linux' }), undefined, 'no PATH: nothing is found by name');
  // Windows: PATHEXT's extensions are tried.
  writeFileSync(join(bin, 'npx.cmd'), '');
  assert.equal(findCommand('npx', bin, { platform: 'win32', pathext: '.EXE;.cmd' }), join(bin, 'npx.cmd'));
  assert.match(missingCommandWarning('nosuch-server-cmd', path)!, /'nosuch-server-cmd' is not found on the PATH a server is started with/);
  assert.match(missingCommandWarning('/opt/nowhere/srv', path)!, /\/opt\/nowhere\/srv does not exist or is not executable/);
  assert.equal(missingCommandWarning('tool', path), undefined);
});

test('servers add with a command that is not there warns at once, and adds it', { timeout: 60_000 }, async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const added = await runCliToEnd(['servers', 'add', 'ghost', '--data-dir', dir, '--', 'airlock-no-such-command-xyz', '--flag'], {
    env: { SHELL: '/bin/false' },
    timeoutMs: 30_000,
  });
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stderr, /airlock: warning: 'airlock-no-such-command-xyz' is not found on the PATH a server is started with/);
  assert.match(added.stdout, /Added MCP server ghost/);
  const real = await runCliToEnd(['servers', 'add', 'real', '--data-dir', dir, '--', process.execPath, 'server.js'], {
    env: { SHELL: '/bin/false' },
    timeoutMs: 30_000,
  });
  assert.equal(real.code, 0, real.stderr);
  assert.doesNotMatch(real.stderr, /warning/);
});
