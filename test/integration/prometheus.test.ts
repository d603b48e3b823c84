// The companion's /metrics scraped by Debian's real Prometheus (issue 40 §3): with --metrics token, Prometheus
// presents the data dir's metrics token (authorization.credentials_file) and reads the same metrics as
// OpenTelemetry's — runs by outcome, calls through the gate, approvals, the MCP operation duration —, read back
// through Prometheus's HTTP API after each scrape (a forwarder that passes every byte says when one went back).
// Without the token the endpoint answers 401.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '../helpers/processes.ts';
import { execute, httpClient } from '../helpers/mcpClients.ts';
import { controlClient, waitForEvent } from '../helpers/control.ts';
import { tempDir } from '../helpers/paths.ts';
import { freePort } from '../helpers/ports.ts';
import { PROMETHEUS, skipUnlessTools } from '../helpers/systemTools.ts';

const skip = skipUnlessTools(PROMETHEUS);
const CREATE = `return (await api.events.create({ body: { title: 'scraped', category: 'music', city: 'Lyon', venue: 'Hall', start: '2030-05-01T20:00:00+02:00', end: '2030-05-01T23:00:00+02:00' } })).status;`;

type Sample = { metric: Record<string, string>; value: [number, string] };

test('Prometheus scrapes /metrics with the metrics token and reads the companion’s metrics back', { skip, timeout: 150_000 }, async (t) => {
  const { dir, cleanup } = tempDir('airlock-prometheus-');
  t.after(cleanup);
  const companion = await serve(dir, ['--metrics', 'token']);
  t.after(() => companion.stop());
  const unauthorised = await fetch(`${companion.url}/metrics`);
  assert.equal(unauthorised.status, 401, 'no token, no metrics');
  const control = controlClient(dir, companion.url);
  const client = await httpClient(companion.mcpUrl, companion.token, 'scraped-client');
  t.after(() => client.close());
  const requested = waitForEvent(control, 'approval-requested');
  const run = execute(client, CREATE);
  await control.call('approvals.decide', { id: (await requested).approval.id, decision: 'approve', scope: 'once' });
  assert.equal((await run).text, '201');

  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  // Prometheus scrapes the companion through a forwarder that passes every byte (the token too) and says when a
  // scrape's answer has gone back: the test reads Prometheus again after each scrape, not on a timer.
  const scraped = new EventEmitter();
  const companionUrl = new URL(companion.url);
  const forwarder = createServer((req, res) => {
    const upstream = httpRequest(
      { host: companionUrl.hostname, port: companionUrl.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => scraped.emit('scrape'));
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => forwarder.close(() => resolve())));
  const target = `127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: airlock',
      '    metrics_path: /metrics',
      '    authorization:',
      '      type: Bearer',
      `      credentials_file: ${join(dir, 'metrics-token')}`,
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  mkdirSync(join(dir, 'tsdb'));
  const prometheus = spawn('prometheus', [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  prometheus.stderr.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-20_000)));
  t.after(() => {
    prometheus.kill('SIGKILL');
  });

  const query = async (promql: string): Promise<Sample[]> => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as { data?: { result?: Sample[] } };
      return body.data?.result ?? [];
    } catch {
      return [];
    }
  };
  // Read back through Prometheus's API after each scrape, until the series are there, or the deadline.
  const wanted = {
    up: 'up{job="airlock"}',
    runs: 'airlock_runs_total{airlock_run_outcome="ok"}',
    calls: 'airlock_calls_total{airlock_call_source="api",airlock_gate_decision="approved"}',
    approvals: 'airlock_approvals_total{airlock_approval_outcome="granted"}',
    duration: 'mcp_server_operation_duration_count{gen_ai_tool_name="execute"}',
  };
  const readAll = async (): Promise<Record<string, Sample[]>> =>
    Object.fromEntries(await Promise.all(Object.entries(wanted).map(async ([k, q]) => [k, await query(q)] as const)));
  const complete = (found: Record<string, Sample[]>) => Object.values(found).every((r) => r.length > 0 && Number(r[0]!.value[1]) > 0);
  let found: Record<string, Sample[]> = {};
  await new Promise<void>((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      scraped.off('scrape', onScrape);
      resolve();
    };
    const onScrape = () =>
      void readAll().then((now) => {
        found = now;
        if (complete(now)) stop();
      });
    const timer = setTimeout(stop, 90_000);
    scraped.on('scrape', onScrape);
  });
  for (const [name, result] of Object.entries(found))
    assert.ok(
      result.length > 0 && Number(result[0]!.value[1]) > 0,
      `${name}: ${wanted[name as keyof typeof wanted]} → ${JSON.stringify(result)}\n${log.slice(-2000)}`,
    );
  assert.equal(found.up![0]!.value[1], '1', 'the scrape with the token succeeded');
});
