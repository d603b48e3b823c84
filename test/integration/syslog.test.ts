// Audit records forwarded to Debian's real rsyslog (issue 40 §3), listening on loopback ports and writing what it
// receives to a file: over TCP (octet counting) a held and approved mutation's records arrive as RFC 5424 messages
// with Airlock's structured data, each the record the local audit holds (the same chain hash); over UDP likewise,
// and the red team's canary key is in none of them. A syslog that is down holds no call up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '../helpers/processes.ts';
import { execute, httpClient } from '../helpers/mcpClients.ts';
import { controlClient, waitForEvent } from '../helpers/control.ts';
import { echoFixture } from '../helpers/echoApi.ts';
import { tempDir } from '../helpers/paths.ts';
import { freePort, freeUdpPort } from '../helpers/ports.ts';
import { CANARY, holdsCanary } from '../helpers/canary.ts';
import { RSYSLOG, skipUnlessTools } from '../helpers/systemTools.ts';

const skip = skipUnlessTools(RSYSLOG);
const CREATE = `return (await api.events.create({ body: { title: 'forwarded', category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } })).status;`;

let rsyslog: ChildProcess | undefined;
let work: { dir: string; cleanup(): void };
let out: string;
let tcp: number;
let udp: number;
let stderr = '';

before(async () => {
  if (skip) return;
  work = tempDir('airlock-rsyslog-');
  out = join(work.dir, 'received.log');
  [tcp, udp] = await Promise.all([freePort(), freeUdpPort()]);
  const config = join(work.dir, 'rsyslog.conf');
  writeFileSync(
    config,
    [
      `global(workDirectory="${work.dir}" maxMessageSize="64k")`,
      'module(load="imudp")',
      `input(type="imudp" address="127.0.0.1" port="${udp}")`,
      'module(load="imtcp")',
      `input(type="imtcp" address="127.0.0.1" port="${tcp}")`,
      `*.* action(type="omfile" file="${out}" template="RSYSLOG_SyslogProtocol23Format")`,
      '',
    ].join('\n'),
  );
  const daemon = existsSync('/usr/sbin/rsyslogd') ? '/usr/sbin/rsyslogd' : '/sbin/rsyslogd';
  rsyslog = spawn(daemon, ['-n', '-f', config, '-i', join(work.dir, 'rsyslogd.pid')], { stdio: ['ignore', 'ignore', 'pipe'] });
  rsyslog.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
});

after(() => {
  rsyslog?.kill('SIGKILL');
  work?.cleanup();
});

/** rsyslog's file, one message a line, once it holds what `ready` wants: read again each time rsyslog writes to its directory. */
function received(ready: (lines: string[]) => boolean, timeoutMs = 45_000): Promise<string[]> {
  const read = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []);
  return new Promise((resolve, reject) => {
    const done = (fn: () => void) => {
      clearTimeout(timer);
      watcher.close();
      fn();
    };
    const check = () => {
      const lines = read();
      if (ready(lines)) done(() => resolve(lines));
    };
    const watcher = watch(work.dir, check);
    const timer = setTimeout(
      () =>
        done(() => reject(new Error(`rsyslog did not receive what was expected within ${timeoutMs} ms; it has:\n${read().slice(-10).join('\n')}\n${stderr}`))),
      timeoutMs,
    );
    check();
  });
}

test(
  'over TCP each audit record arrives as an RFC 5424 message with Airlock’s structured data, the record the audit holds',
  { skip, timeout: 120_000 },
  async (t) => {
    const { dir, cleanup } = tempDir('airlock-syslog-tcp-');
    t.after(cleanup);
    const companion = await serve(dir, ['--syslog', `tcp://127.0.0.1:${tcp}`]);
    t.after(() => companion.stop());
    const control = controlClient(dir, companion.url);
    const client = await httpClient(companion.mcpUrl, companion.token, 'forwarded-client');
    t.after(() => client.close());
    const requested = waitForEvent(control, 'approval-requested');
    const run = execute(client, CREATE);
    await control.call('approvals.decide', { id: (await requested).approval.id, decision: 'approve', scope: 'once' });
    assert.equal((await run).text, '201');

    const records = (await control.call('audit.query', { order: 'oldest' })).records;
    const approved = records.find((r) => r.kind === 'api' && r.decision === 'approved')!;
    assert.ok(approved, JSON.stringify(records.map((r) => r.kind)));
    const tool = records.find((r) => r.kind === 'tool' && r.tool === 'execute')!;
    const lines = await received((all) => [approved.hash, tool.hash].every((hash) => all.some((l) => l.includes(`hash="${hash}"`))));
    const line = lines.find((l) => l.includes(`hash="${approved.hash}"`))!;
    // <PRI>1 TIMESTAMP HOST airlock PID api [airlock@32473 …] message: facility 13 (log audit), severity notice (5).
    const m = /^<(\d+)>1 (\S+) (\S+) airlock (\d+) api \[airlock@32473 ([^\]]*)\] (.*)$/.exec(line);
    assert.ok(m, line);
    assert.equal(Number(m![1]), 13 * 8 + 5);
    assert.match(m![5]!, /kind="api"/);
    assert.match(m![5]!, /decision="approved"/);
    assert.match(m![5]!, /operation="events.create"/);
    const body = JSON.parse(m![6]!.replace(/^\ufeff/, '')) as { hash: string; seq: number; method: string };
    assert.equal(body.hash, approved.hash, 'the message is the record the local audit holds');
    assert.equal(body.method, 'POST');
    assert.match(
      lines.find((l) => l.includes(`hash="${tool.hash}"`))!,
      / airlock \d+ tool \[airlock@32473 seq="\d+" kind="tool" tool="execute" outcome="ok"/,
      'the tool call too',
    );
  },
);

test('over UDP too, and the canary key is in no message, in any encoding', { skip, timeout: 120_000 }, async (t) => {
  const { dir, spec } = await echoFixture(t);
  const companion = await serve(dir, ['--spec', spec, '--auth', 'bearer', '--syslog', `udp://127.0.0.1:${udp}`], { AIRLOCK_API_KEY: CANARY });
  t.after(() => companion.stop());
  const client = await httpClient(companion.mcpUrl, companion.token, CANARY);
  t.after(() => client.close());
  for (const code of [`return await api.items.list({ query: { tag: ['x'] } });`, `return await api.fail.get();`, `throw new Error(${JSON.stringify(CANARY)});`])
    await execute(client, code);
  const control = controlClient(dir, companion.url);
  const last = (await control.call('audit.query', {})).records[0]!;
  const lines = await received((all) => all.some((l) => l.includes(`hash="${last.hash}"`)));
  const mine = lines.filter((l) => / airlock \d+ (api|tool|prune) \[airlock@32473 /.test(l));
  assert.ok(mine.length >= 4, `${mine.length} messages`);
  assert.equal(holdsCanary(lines.join('\n')), false, 'the key, in clear, URL-encoded, hex or base64, is in no message');
});

test('a syslog that is down holds no call up', { skip, timeout: 120_000 }, async (t) => {
  const down = await freePort();
  const { dir, cleanup } = tempDir('airlock-syslog-down-');
  t.after(cleanup);
  const companion = await serve(dir, ['--syslog', `tcp://127.0.0.1:${down}`]);
  t.after(() => companion.stop());
  const client = await httpClient(companion.mcpUrl, companion.token, 'no-syslog');
  t.after(() => client.close());
  for (let i = 0; i < 5; i++) assert.equal((await execute(client, 'return (await api.events.list()).status')).text, '200');
  const control = controlClient(dir, companion.url);
  assert.ok((await control.call('audit.query', { kind: 'tool' })).records.length >= 5, 'the local audit keeps every record');
});
