import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkBearer, checkHostAndOrigin, isLoopbackAddress } from '../../main/core/http/requestGuards.ts';
import { ensureTokenFile, tokensEqual } from '../../main/core/http/tokenFile.ts';
import { tempDir } from '../helpers/paths.ts';
import type { AirlockError } from '../../main/core/util/errors.ts';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

test('loopback addresses are recognised, others are not', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) assert.equal(isLoopbackAddress(h), true, h);
  for (const h of ['0.0.0.0', '10.0.0.1', '192.168.1.1', 'example.com', 'localhost.evil.com', '169.254.169.254']) assert.equal(isLoopbackAddress(h), false, h);
});

test('Host must be loopback (DNS rebinding)', () => {
  assert.equal(checkHostAndOrigin(req({ host: '127.0.0.1:7339' })).ok, true);
  assert.equal(checkHostAndOrigin(req({ host: 'localhost:7339' })).ok, true);
  assert.equal(checkHostAndOrigin(req({ host: '[::1]:7339' })).ok, true);
  const rebound = checkHostAndOrigin(req({ host: 'attacker.example:7339' }));
  assert.deepEqual(rebound, { ok: false, status: 403, reason: "Host 'attacker.example:7339' is not a loopback address" });
  assert.equal(checkHostAndOrigin(req({})).ok, false);
});

test('Origin, when present, must be a loopback origin', () => {
  assert.equal(checkHostAndOrigin(req({ host: '127.0.0.1:1', origin: 'http://localhost:5173' })).ok, true);
  for (const origin of ['https://evil.example', 'null', 'file://', 'http://127.0.0.1.evil.example']) {
    const v = checkHostAndOrigin(req({ host: '127.0.0.1:1', origin }));
    assert.equal(v.ok, false, origin);
    if (!v.ok) assert.equal(v.status, 403);
  }
});

test('bearer tokens: exact match only', () => {
  const t = 'a'.repeat(64);
  assert.equal(checkBearer(req({ authorization: `Bearer ${t}` }), t).ok, true);
  assert.equal(checkBearer(req({ authorization: `bearer ${t}` }), t).ok, true);
  assert.equal(checkBearer(req({ authorization: `Bearer ${t}x` }), t).ok, false);
  assert.equal(checkBearer(req({ authorization: `Basic ${t}` }), t).ok, false);
  assert.equal(checkBearer(req({}), t).ok, false);
  assert.equal(tokensEqual('short', t), false);
});

test('the token file holds 256 random bits, is created 0600 and is stable', (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const file = join(dir, 'token');
  const a = ensureTokenFile(file);
  assert.match(a, /^[0-9a-f]{64}$/);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(ensureTokenFile(file), a);
  assert.notEqual(ensureTokenFile(join(dir, 'other')), a);
  writeFileSync(file, 'garbage');
  assert.throws(
    () => ensureTokenFile(file),
    (e: AirlockError) => /does not hold a valid token \(delete it and restart/.test(e.line),
  );
});
