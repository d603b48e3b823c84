// Telemetry on (issue 40 §2): the official OpenTelemetry SDK, its traces and
// metrics sent over OTLP/HTTP to where the standard variables say
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, …; the setting
// --telemetry-endpoint, or the organisation's policy, fixes the endpoint),
// and its metrics also read by Prometheus at /metrics when that is on
// (prometheusMetrics.ts).
//
// Traces follow the MCP semantic conventions: a span per MCP request,
// `{mcp.method.name} {target}` (`tools/call execute`), with mcp.method.name,
// gen_ai.tool.name, mcp.protocol.version, network.transport and the session
// as a hash (an HTTP session id is a handle a client holds: it is not sent
// out); below it a span per call through the gate — `POST /events` for an
// API's operation, `tools/call fs.read_file` for another server's tool —
// with the operation, method, host, status, the gate's decision and who
// decided; and below that the wait for a person, its own span.
//
// Metrics: mcp.server.operation.duration (seconds, by method, tool, error),
// mcp.server.session.duration (seconds, by transport and revision),
// airlock.approvals (asked, granted, denied, timed_out; granted_earlier
// when a grant or an earlier yes let a call through unasked), airlock.runs (by
// outcome), airlock.calls (by source, status and decision). The SDK's own
// counts ride along: a span dropped because the bounded queue was full is
// otel.sdk.processor.span.processed{error.type="queue_full"}.
//
// Never sent: keys, request and response bodies, script source, URLs (only
// the path template and the host). Every string attribute goes through the
// audit's redactor first. The exporters run in the background with bounded
// queues: a collector that is down never slows or fails a call.
import { createHash } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AsyncLocalStorage } from 'node:async_hooks';
import { passedWithoutAsking } from '../../../contract/approvals.ts';
import type { CallEnd, CallInfo, CallTelemetry, RequestInfo, Telemetry, TraceParent } from './telemetry.ts';

export interface OtelOptions {
  /** The audit's redactor: every string attribute passes through it. */
  redact(text: string): string;
  serviceName: string;
  serviceVersion: string;
  /** Where traces and metrics go over OTLP/HTTP (absent: no OTLP export, e.g. Prometheus alone). */
  exporters?: { spans: SpanExporter; metrics: PushMetricExporter; metricsEveryMs?: number };
  /** Other readers of the metrics (Prometheus). */
  readers?: MetricReader[];
  /** The span queue's bound (default 2048): past it spans are dropped, and counted. */
  maxQueueSize?: number;
  /** How long spans wait to be sent in a batch (default 5000 ms). */
  scheduledDelayMs?: number;
}

/**
 * The MCP methods a metric is kept by; any other a client sends counts as `other` (a client inventing names must
 * not grow the series without end). Spans keep the name as sent (cut short).
 */
const KNOWN_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'logging/setLevel',
  'completion/complete',
  'server/discover',
  'subscriptions/listen',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'tasks/result',
  'tasks/list',
]);
const metricMethod = (method: string) => (KNOWN_METHODS.has(method) ? method : 'other');
/** A revision as a metric keeps it: a date-shaped one, else `other`. */
const metricRevision = (version: string | undefined) => (version === undefined ? undefined : /^\d{4}-\d{2}-\d{2}$/.test(version) ? version : 'other');

const APPROVAL_OUTCOME: Record<string, string> = { denied: 'denied', timeout: 'timed_out', no_approver: 'denied', withdrawn: 'denied' };

export function createOtelTelemetry(o: OtelOptions): Telemetry {
  const resource = resourceFromAttributes({ 'service.name': o.serviceName, 'service.version': o.serviceVersion });
  const readers: MetricReader[] = [...(o.readers ?? [])];
  if (o.exporters)
    readers.push(new PeriodicExportingMetricReader({ exporter: o.exporters.metrics, exportIntervalMillis: o.exporters.metricsEveryMs ?? 15_000 }));
  const meters = new MeterProvider({ resource, readers });
  const traces = new TracerProvider({
    resource,
    // What a client declares (its name, a method) is cut short: an attribute never carries a megabyte out.
    spanLimits: { attributeValueLengthLimit: 256, attributeCountLimit: 64 },
    spanProcessors: o.exporters
      ? [
          new BatchSpanProcessor({
            exporter: o.exporters.spans,
            maxQueueSize: o.maxQueueSize ?? 2048,
            scheduledDelayMillis: o.scheduledDelayMs ?? 5_000,
            selfObsMeterProvider: meters,
          }),
        ]
      : [],
  });
  // With no span exporter (Prometheus alone) spans are not recorded at all: the API's no-op tracer.
  const tracer = o.exporters ? traces.getTracer('airlock', o.serviceVersion) : trace.getTracerProvider().getTracer('airlock');
  const meter = meters.getMeter('airlock', o.serviceVersion);
  const duration = meter.createHistogram('mcp.server.operation.duration', {
    unit: 's',
    description: 'How long an MCP request took, from the server’s side',
    advice: { explicitBucketBoundaries: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 300] },
  });
  const sessions = meter.createHistogram('mcp.server.session.duration', {
    unit: 's',
    description: 'How long an MCP session lasted, from the server’s side',
    advice: { explicitBucketBoundaries: [1, 10, 60, 300, 900, 1800, 3600, 14400, 43200, 86400] },
  });
  const approvals = meter.createCounter('airlock.approvals', { description: 'Approvals asked of a person, and how each ended' });
  const runs = meter.createCounter('airlock.runs', { description: 'Runs of execute, by outcome' });
  const calls = meter.createCounter('airlock.calls', { description: 'Calls through the gate, by source (api, tool), status and decision' });
  const current = new AsyncLocalStorage<Context>();

  /** String attributes redacted; absent values left out. */
  const attrs = (raw: Record<string, string | number | boolean | undefined>): Attributes => {
    const out: Attributes = {};
    for (const [key, value] of Object.entries(raw)) if (value !== undefined) out[key] = typeof value === 'string' ? o.redact(value) : value;
    return out;
  };
  const hashed = (id: string | undefined) => (id ? createHash('sha256').update(id).digest('hex').slice(0, 16) : undefined);

  /** One MCP request's span (kind server), and how it ends: its status, and its duration recorded. */
  const open = (info: RequestInfo): { span: Span; end: (error?: string) => void } => {
    const base = attrs({
      'mcp.method.name': info.method,
      'gen_ai.tool.name': info.tool,
      'gen_ai.operation.name': info.tool ? 'execute_tool' : undefined,
      'mcp.protocol.version': info.caller.protocolVersion,
      'mcp.session.id': hashed(info.caller.sessionId),
      'network.transport': info.caller.transport === 'stdio' ? 'pipe' : 'tcp',
      'airlock.client.name': info.caller.clientName,
    });
    const span = tracer.startSpan(`${info.method}${info.tool ? ` ${info.tool}` : ''}`, { kind: SpanKind.SERVER, attributes: base }, ROOT_CONTEXT);
    const started = performance.now();
    return {
      span,
      end(error) {
        if (error) {
          span.setAttribute('error.type', o.redact(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
        const revision = metricRevision(info.caller.protocolVersion);
        const keep: Attributes = { 'mcp.method.name': metricMethod(info.method), 'network.transport': base['network.transport']! };
        if (base['gen_ai.tool.name'] !== undefined) keep['gen_ai.tool.name'] = base['gen_ai.tool.name'];
        if (revision) keep['mcp.protocol.version'] = revision;
        duration.record((performance.now() - started) / 1000, error ? { ...keep, 'error.type': o.redact(error) } : keep);
      },
    };
  };

  return {
    enabled: true,
    async request(info, fn, failed) {
      const { span, end } = open(info);
      let error: string | undefined;
      try {
        const result = await current.run(trace.setSpan(ROOT_CONTEXT, span), fn);
        error = failed?.(result);
        return result;
      } catch (thrown) {
        error = 'error';
        span.recordException({ name: (thrown as Error)?.name ?? 'Error', message: 'the request failed' });
        throw thrown;
      } finally {
        end(error);
      }
    },
    begin: (info) => open(info).end,
    current: () => current.getStore() as unknown as TraceParent | undefined,
    call(parent, info) {
      const span = tracer.startSpan(
        callName(info),
        { kind: SpanKind.CLIENT, attributes: attrs(callAttributes(info)) },
        (parent as unknown as Context) ?? ROOT_CONTEXT,
      );
      return callSpan(span, info.source);
    },
    run(outcome) {
      runs.add(1, { 'airlock.run.outcome': o.redact(outcome) });
    },
    session(ended) {
      const seconds = (Date.now() - Date.parse(ended.connectedAt)) / 1000;
      if (!(seconds >= 0)) return;
      sessions.record(seconds, {
        'network.transport': ended.transport === 'stdio' ? 'pipe' : 'tcp',
        ...(ended.protocolVersion ? { 'mcp.protocol.version': metricRevision(ended.protocolVersion)! } : {}),
      });
    },
    async shutdown() {
      const bounded = <T>(p: Promise<T>) => Promise.race([p, new Promise<void>((resolve) => setTimeout(resolve, 3_000).unref())]);
      await Promise.allSettled([bounded(traces.shutdown()), bounded(meters.shutdown())]);
    },
  };

  function callSpan(span: Span, source: CallInfo['source']): CallTelemetry {
    return {
      waiting() {
        const wait = tracer.startSpan('approval wait', { kind: SpanKind.INTERNAL }, trace.setSpan(ROOT_CONTEXT, span));
        return (decision) => {
          // A grant or an earlier yes in the run let it through: no person was asked this time.
          const earlier = decision.approved && passedWithoutAsking(decision);
          const outcome = earlier ? 'granted_earlier' : decision.approved ? 'granted' : (APPROVAL_OUTCOME[decision.code] ?? 'denied');
          if (!earlier) approvals.add(1, { 'airlock.approval.outcome': 'asked' });
          approvals.add(1, { 'airlock.approval.outcome': outcome });
          wait.setAttributes(attrs({ 'airlock.approval.outcome': outcome, 'airlock.approval.decided_by': decision.by }));
          wait.end();
        };
      },
      end(end: CallEnd) {
        span.setAttributes(
          attrs({
            'airlock.gate.decision': end.decision,
            'airlock.gate.decided_by': end.decidedBy,
            'http.response.status_code': end.status || undefined,
            'error.type': end.error,
          }),
        );
        if (end.error || end.decision === 'refused' || end.decision === 'denied') span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        calls.add(
          1,
          attrs({
            'airlock.call.source': source,
            'airlock.gate.decision': end.decision,
            'http.response.status_code': end.status || undefined,
          }),
        );
      },
    };
  }
}

function callName(info: CallInfo): string {
  return info.source === 'api' ? `${info.method} ${info.pathTemplate}` : `tools/call ${info.server}.${info.tool}`;
}

function callAttributes(info: CallInfo): Record<string, string | undefined> {
  return info.source === 'api'
    ? {
        'airlock.call.source': 'api',
        'airlock.api.name': info.api,
        'airlock.operation.id': info.operation,
        'http.request.method': info.method,
        'server.address': info.host,
        'url.template': info.pathTemplate,
      }
    : { 'airlock.call.source': 'tool', 'mcp.method.name': 'tools/call', 'airlock.server.name': info.server, 'gen_ai.tool.name': info.tool };
}
