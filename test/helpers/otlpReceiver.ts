// An OpenTelemetry collector for tests: it takes OTLP/HTTP exports on a
// loopback port (POST /v1/traces, /v1/metrics, in the OTLP/JSON encoding the
// otlp-http exporters send), answers as a collector does, and keeps every
// payload as it came: the spans flattened with their attributes as a map,
// and the metric names with their data points.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, string | number | boolean>;
  status?: { code?: number };
}

export interface ReceivedPoint {
  metric: string;
  attributes: Record<string, string | number | boolean>;
  value: number;
}

export interface OtlpReceiver {
  url: string;
  /** Every body received, as text (for the canary check). */
  raw(): string[];
  spans(): ReceivedSpan[];
  points(): ReceivedPoint[];
  /** Resolves once `ready` holds, checked as each export arrives; rejects after timeoutMs. */
  waitFor(ready: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const valueOf = (v: AnyValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue ?? ''));
const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      bodies.push(text);
      try {
        const body = JSON.parse(text) as Record<string, unknown[]>;
        if (req.url === '/v1/traces') {
          for (const rs of (body.resourceSpans ?? []) as { scopeSpans?: { spans?: (Omit<ReceivedSpan, 'attributes'> & { attributes?: KeyValue[] })[] }[] }[])
            for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ ...s, attributes: attributesOf(s.attributes) });
        } else if (req.url === '/v1/metrics') {
          type Point = { attributes?: KeyValue[]; asInt?: string | number; asDouble?: number; count?: string | number };
          type Metric = { name: string; sum?: { dataPoints?: Point[] }; histogram?: { dataPoints?: Point[] }; gauge?: { dataPoints?: Point[] } };
          for (const rm of (body.resourceMetrics ?? []) as { scopeMetrics?: { metrics?: Metric[] }[] }[])
            for (const sm of rm.scopeMetrics ?? [])
              for (const m of sm.metrics ?? [])
                for (const p of m.sum?.dataPoints ?? m.histogram?.dataPoints ?? m.gauge?.dataPoints ?? [])
                  points.push({ metric: m.name, attributes: attributesOf(p.attributes), value: Number(p.asInt ?? p.asDouble ?? p.count ?? 0) });
        }
      } catch {
        // Kept raw all the same.
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    raw: () => [...bodies],
    spans: () => [...spans],
    points: () => [...points],
    waitFor(ready, timeoutMs = 30_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!ready()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the collector did not receive what was expected within ${timeoutMs} ms (${spans.length} spans, ${points.length} points)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
