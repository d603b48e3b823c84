// The companion's metrics in the Prometheus text format (issue 40 §3): the
// same meters as OpenTelemetry's (otelTelemetry.ts), read by the official
// Prometheus exporter at each scrape of /metrics on the companion's loopback
// port (airlock serve). Off unless --metrics says token (Prometheus presents
// the bearer token kept in the data dir's metrics-token file, 0600) or open
// (an explicit opt-in: anyone who can reach the loopback port reads them).
// The metrics hold names, codes and counts only.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import type { MetricsEndpoint } from '../config/settingsSafety.ts';
import { ensureTokenFile, tokensEqual } from '../http/tokenFile.ts';
import { bearerOf } from '../http/requestGuards.ts';

export interface PrometheusMetrics {
  /** The reader the meters are read through (given to the telemetry). */
  reader: MetricReader;
  /** Answers a request for /metrics: the text format, or 401 without the token. */
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** The /metrics endpoint as the setting asks for it, or undefined when it is off (nothing of the exporter is loaded). */
export async function prometheusMetrics(mode: MetricsEndpoint, tokenFile: string): Promise<PrometheusMetrics | undefined> {
  if (mode === 'off') return undefined;
  const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus');
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const token = mode === 'token' ? ensureTokenFile(tokenFile) : undefined;
  return {
    reader: exporter,
    handle(req, res) {
      const given = bearerOf(req);
      if (token && (given === undefined || !tokensEqual(given, token))) {
        res
          .writeHead(401, { 'www-authenticate': 'Bearer realm="airlock-metrics"', 'content-type': 'text/plain' })
          .end(`the metrics token is needed (${tokenFile})\n`);
        return;
      }
      exporter.getMetricsRequestHandler(req, res);
    },
  };
}
