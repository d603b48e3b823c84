// Audit records as syslog messages (issue 40 §3): the RFC 5424 line (priority by outcome, structured data escaped,
// the record as the message), the URL that names where they go, and the bound on what waits while syslog is down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSyslogForwarder, formatSyslogRecord } from '../../main/core/telemetry/syslogForwarder.ts';
import { parseSyslogUrl } from '../../main/core/config/syslogTarget.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import { freePort } from '../helpers/ports.ts';
import type { AuditEntry } from '../../main/core/audit/types.ts';

const entry = (fields: Record<string, unknown>) =>
  ({ seq: 7, kind: 'api', time: '2026-12-03T10:00:00.000Z', hash: 'ab', prevHash: 'aa', ...fields }) as unknown as AuditEntry;

test('one record is one RFC 5424 line: log audit facility, warning for a refusal, structured data escaped, the record as the message', () => {
  const sent = formatSyslogRecord(entry({ decision: 'approved', operationId: 'events.create', clientName: 'say "hi"] \\ now' }), 'host a', 42);
  assert.match(sent, /^<109>1 2026-12-03T10:00:00.000Z host_a airlock 42 api \[airlock@32473 seq="7" kind="api" /);
  assert.match(sent, /client="say \\"hi\\"\\] \\\\ now"/);
  assert.match(sent, /operation="events.create"/);
  const body = JSON.parse(sent.slice(sent.indexOf('\ufeff') + 1)) as { seq: number; clientName: string };
  assert.equal(body.seq, 7);
  assert.equal(body.clientName, 'say "hi"] \\ now');
  assert.match(formatSyslogRecord(entry({ decision: 'denied' }), 'h', 1), /^<108>1 /, 'severity warning');
});

test('the URL names the transport, host and port; anything else is refused saying what to write', () => {
  assert.deepEqual(parseSyslogUrl('udp://logs.example.com'), { transport: 'udp', host: 'logs.example.com', port: 514 });
  assert.deepEqual(parseSyslogUrl('tls://[::1]:7000'), { transport: 'tls', host: '::1', port: 7000 });
  assert.deepEqual(parseSyslogUrl('tcp://127.0.0.1'), { transport: 'tcp', host: '127.0.0.1', port: 601 });
  assert.throws(() => parseSyslogUrl('http://x'), /'http:' is not udp:, tcp: or tls:/);
  assert.throws(() => parseSyslogUrl('logs:514'), /is not udp:, tcp: or tls:|is not a URL/);
});

test('while syslog is down at most 1000 records wait; the rest are dropped, counted, and nothing throws', async () => {
  const forwarder = createSyslogForwarder({ transport: 'tcp', host: '127.0.0.1', port: await freePort() }, silentLogger);
  for (let i = 0; i < 1_005; i++) forwarder.forward(entry({ seq: i }));
  assert.equal(forwarder.dropped(), 5);
  await forwarder.close();
});
