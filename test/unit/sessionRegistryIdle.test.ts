// Callers with no session (2026-07-28 requests: a credential and a scope)
// are listed while they call and closed once idle past the limit; a session's
// entry (2025 HTTP, stdio) is left to its session, and a caller with a call in
// flight is never closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionRegistry } from '../../main/core/mcp/sessionRegistry.ts';
import { isStatelessCaller, readCredential } from '../../main/core/mcp/httpCredential.ts';

test('idle callers with no session are closed; sessions and callers with a call in flight are not', () => {
  let now = new Date('2026-12-03T00:00:00Z');
  const registry = new SessionRegistry(() => now);
  const closed: string[] = [];
  registry.onClose((key) => closed.push(key));
  const modern = readCredential('Bearer abc', ['github']);
  assert.ok(modern.ok);
  const busy = readCredential('Bearer abc', undefined);
  assert.ok(busy.ok);
  assert.ok(isStatelessCaller(modern.credential.key) && isStatelessCaller(busy.credential.key));
  assert.notEqual(modern.credential.key, busy.credential.key, 'a scope makes another caller');
  registry.begin({ key: modern.credential.key, transport: 'http' });
  registry.end(modern.credential.key);
  registry.begin({ key: busy.credential.key, transport: 'http' });
  registry.open({ key: 'http:session-1', transport: 'http', sessionId: 'session-1' });
  now = new Date('2026-12-03T01:00:00Z');
  assert.equal(registry.closeIdle(isStatelessCaller, new Date('2026-12-03T00:30:00Z')), 1);
  assert.deepEqual(closed, [modern.credential.key]);
  assert.deepEqual(
    registry.list().map((s) => s.key),
    [busy.credential.key, 'http:session-1'],
  );
  assert.equal(isStatelessCaller('http:session-1'), false);
  assert.equal(isStatelessCaller('stdio:123'), false);
});
