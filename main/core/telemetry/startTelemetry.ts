// Telemetry as the settings ask for it: off (nothing is built), or
// OpenTelemetry over OTLP/HTTP to the collector the setting
// --telemetry-endpoint names, else where the standard OTEL_EXPORTER_OTLP_*
// variables say (the exporters read them, with OTEL_EXPORTER_OTLP_HEADERS),
// as the service OTEL_SERVICE_NAME (default airlock). Metrics are sent every
// OTEL_METRIC_EXPORT_INTERVAL ms (default 60000); spans in batches every
// OTEL_BSP_SCHEDULE_DELAY ms (default 5000), at most OTEL_BSP_MAX_QUEUE_SIZE
// queued (default 2048; past it they are dropped, and counted).
//
// Off, nothing of OpenTelemetry is loaded (the SDK is imported only when on).
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import type { Settings } from '../config/settings.ts';
import type { Logger } from '../log/logger.ts';
import { NO_TELEMETRY, type Telemetry } from './telemetry.ts';

export interface TelemetryStart {
  settings: Pick<Settings, 'telemetry' | 'telemetryEndpoint'>;
  env: Record<string, string | undefined>;
  version: string;
  redact(text: string): string;
  logger: Logger;
  /** Other readers of the metrics (the Prometheus endpoint), which need the meters even with OTLP off. */
  readers?: MetricReader[];
}

const positive = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

export async function startTelemetry(o: TelemetryStart): Promise<Telemetry> {
  const otlp = o.settings.telemetry === 'otlp';
  if (!otlp && !o.readers?.length) return NO_TELEMETRY;
  const [{ createOtelTelemetry }, { OTLPTraceExporter }, { OTLPMetricExporter }] = await Promise.all([
    import('./otelTelemetry.ts'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
  ]);
  const endpoint = o.settings.telemetryEndpoint?.replace(/\/+$/, '');
  const telemetry = createOtelTelemetry({
    redact: o.redact,
    serviceName: o.env.OTEL_SERVICE_NAME || 'airlock',
    serviceVersion: o.version,
    ...(o.readers ? { readers: o.readers } : {}),
    maxQueueSize: positive(o.env.OTEL_BSP_MAX_QUEUE_SIZE, 2048),
    scheduledDelayMs: positive(o.env.OTEL_BSP_SCHEDULE_DELAY, 5_000),
    ...(otlp
      ? {
          exporters: {
            spans: new OTLPTraceExporter(endpoint ? { url: `${endpoint}/v1/traces` } : {}),
            metrics: new OTLPMetricExporter(endpoint ? { url: `${endpoint}/v1/metrics` } : {}),
            metricsEveryMs: positive(o.env.OTEL_METRIC_EXPORT_INTERVAL, 60_000),
          },
        }
      : {}),
  });
  if (otlp)
    o.logger.info(
      `telemetry: OpenTelemetry over OTLP/HTTP to ${endpoint ?? o.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? o.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318'}`,
    );
  return telemetry;
}
