// Telemetry's bounds (issue 40 §2): a collector that never answers does not hold a call up, its queue stays
// bounded, and what it drops is counted (the SDK's otel.sdk.processor.span.processed{error.type=queue_full}); every
// string attribute goes through the redactor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AggregationTemporality, InMemoryMetricExporter, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { createOtelTelemetry } from '../../main/core/telemetry/otelTelemetry.ts';

const CALLER = { key: 'http:s1', transport: 'http' as const, sessionId: 's1', clientName: 'client SECRET-1' };

test('a collector that never answers: calls go on, the queue stays bounded, and the drops are counted', async () => {
  const held: ReadableSpan[][] = [];
  // An exporter whose export never completes: the collector is down and the connection hangs.
  const hanging: SpanExporter = { export: (spans) => void held.push(spans), shutdown: async () => undefined };
  const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 });
  const telemetry = createOtelTelemetry({
    redact: (text) => text.replaceAll('SECRET-1', '[redacted]'),
    serviceName: 'airlock',
    serviceVersion: '0.0.0',
    exporters: { spans: hanging, metrics: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), metricsEveryMs: 3_600_000 },
    readers: [reader],
    maxQueueSize: 4,
    scheduledDelayMs: 3_600_000,
  });
  for (let i = 0; i < 20; i++) {
    const answer = await telemetry.request({ method: 'tools/call', tool: 'execute', caller: CALLER }, async () => {
      const call = telemetry.call(telemetry.current(), { source: 'tool', server: 'fs', tool: 'read' });
      call.end({ decision: 'read' });
      return i;
    });
    assert.equal(answer, i, 'the call is answered as if there were no telemetry');
  }
  await reader.forceFlush();
  const points = metrics
    .getMetrics()
    .flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
    .filter((m) => m.descriptor.name === 'otel.sdk.processor.span.processed')
    .flatMap((m) => m.dataPoints as { attributes: Record<string, unknown>; value: unknown }[]);
  const dropped = points.filter((p) => p.attributes['error.type'] === 'queue_full').reduce((sum, p) => sum + Number(p.value), 0);
  assert.ok(dropped >= 40 - 4 - 4, `40 spans, a queue of 4: most were dropped, and counted (${dropped})`);
  await telemetry.shutdown();
});

test('every string attribute is redacted before it leaves', async () => {
  const sent: ReadableSpan[] = [];
  const exporter: SpanExporter = { export: (spans, done) => (sent.push(...spans), done({ code: 0 })), shutdown: async () => undefined };
  const telemetry = createOtelTelemetry({
    redact: (text) => text.replaceAll('SECRET-1', '[redacted]'),
    serviceName: 'airlock',
    serviceVersion: '0.0.0',
    exporters: { spans: exporter, metrics: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), metricsEveryMs: 3_600_000 },
    scheduledDelayMs: 10,
  });
  await telemetry.request({ method: 'tools/call', tool: 'execute', caller: CALLER }, async () => {
    const call = telemetry.call(telemetry.current(), { source: 'api', api: 'demo', operation: 'op SECRET-1', method: 'GET', host: 'h', pathTemplate: '/x' });
    call.end({ decision: 'read', status: 200 });
  });
  await telemetry.shutdown();
  const text = JSON.stringify(sent.map((s) => ({ name: s.name, attributes: s.attributes })));
  assert.match(text, /\[redacted\]/);
  assert.doesNotMatch(text, /SECRET-1/);
  assert.equal(sent.find((s) => s.name === 'GET /x')?.parentSpanContext?.spanId, sent.find((s) => s.name === 'tools/call execute')?.spanContext().spanId);
});

test('a session that ends is measured as mcp.server.session.duration, by transport and revision', async () => {
  const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 });
  const telemetry = createOtelTelemetry({ redact: (text) => text, serviceName: 'airlock', serviceVersion: '0.0.0', readers: [reader] });
  telemetry.session({ transport: 'stdio', protocolVersion: '2025-11-25', connectedAt: new Date(Date.now() - 90_000).toISOString() });
  await reader.forceFlush();
  const metric = metrics
    .getMetrics()
    .flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
    .find((m) => m.descriptor.name === 'mcp.server.session.duration');
  const point = metric?.dataPoints[0] as { attributes: Record<string, unknown>; value: { sum: number; count: number } } | undefined;
  assert.deepEqual(point?.attributes, { 'network.transport': 'pipe', 'mcp.protocol.version': '2025-11-25' });
  assert.equal(point?.value.count, 1);
  assert.ok(point!.value.sum >= 90 && point!.value.sum < 100, `${point?.value.sum} s`);
  await telemetry.shutdown();
});

test('what a client declares cannot grow the metrics without end, nor carry a megabyte out in a span', async () => {
  const sent: ReadableSpan[] = [];
  const exporter: SpanExporter = { export: (spans, done) => (sent.push(...spans), done({ code: 0 })), shutdown: async () => undefined };
  const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 });
  const telemetry = createOtelTelemetry({
    redact: (text) => text,
    serviceName: 'airlock',
    serviceVersion: '0.0.0',
    exporters: { spans: exporter, metrics: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), metricsEveryMs: 3_600_000 },
    readers: [reader],
    scheduledDelayMs: 10,
  });
  const huge = { ...CALLER, clientName: 'x'.repeat(1_000_000), protocolVersion: 'made-up' };
  for (let i = 0; i < 50; i++) telemetry.begin({ method: `invented/${i}`, caller: huge })();
  telemetry.begin({ method: 'tools/list', caller: CALLER })();
  await reader.forceFlush();
  const series = metrics
    .getMetrics()
    .flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
    .filter((m) => m.descriptor.name === 'mcp.server.operation.duration')
    .flatMap((m) => m.dataPoints.map((p) => `${String(p.attributes['mcp.method.name'])} ${String(p.attributes['mcp.protocol.version'] ?? '-')}`));
  assert.deepEqual(series.sort(), ['other other', 'tools/list -']);
  await telemetry.shutdown();
  const longest = Math.max(...sent.map((s) => String(s.attributes['airlock.client.name'] ?? '').length));
  assert.ok(longest <= 256, `a client's name is cut to 256 characters (${longest})`);
});
