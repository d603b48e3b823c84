// The settings table's 'safety' group (Safety and records on the settings
// screen): approvals, where keys are kept, how long the audit and the log
// keep what they hold, the diagnostics tools, and the caps on other MCP
// servers (message size, tools offered directly).
import { parseSyslogUrl } from './syslogTarget.ts';
import { count, choice, def, duration, httpUrl, onOff, size, text, type SettingDef } from './settingDef.ts';

/** Where the companion's activity goes besides its own audit: nowhere, or OpenTelemetry over OTLP/HTTP. */
export const TELEMETRY_MODES = ['off', 'otlp'] as const;
export type TelemetryMode = (typeof TELEMETRY_MODES)[number];
/** Who may read the companion's metrics at /metrics: nobody, Prometheus with the metrics token, or anyone on this machine. */
export const METRICS_ENDPOINTS = ['off', 'token', 'open'] as const;
export type MetricsEndpoint = (typeof METRICS_ENDPOINTS)[number];

export const SECRET_STORES = ['keychain', 'file'] as const;
export type SecretStoreChoice = (typeof SECRET_STORES)[number];

export const SAFETY_SETTINGS = [
  def({
    key: 'approvalTimeoutMs',
    flag: '--approval-timeout-ms',
    valueName: '<ms>',
    label: 'Approval timeout',
    group: 'safety',
    spec: duration(1000, 3_600_000, 'ms'),
    persist: true,
    live: true,
    defaultValue: 120_000,
    description: 'how long a mutation waits for a person before it is denied',
  }),
  def({
    key: 'approvalReplyAfterMs',
    flag: '--approval-reply-after-ms',
    valueName: '<ms>',
    label: 'Answer a waiting call after',
    group: 'safety',
    spec: duration(0, 3_600_000, 'ms'),
    persist: true,
    live: true,
    defaultValue: 45_000,
    description:
      'how long execute waits for a person before it answers "held" (nothing sent; the model continues with execute {resume}), so a client that gives up at 60 s never loses the call; 0 waits as long as the approval',
  }),
  def({
    key: 'approvalProgressEveryMs',
    flag: '--approval-progress-every-ms',
    valueName: '<ms>',
    label: 'Tell a waiting client every',
    group: 'safety',
    spec: duration(1000, 60_000, 'ms'),
    persist: true,
    live: true,
    defaultValue: 10_000,
    description:
      "while a call waits for a person, how often a client that handles progress is told so (at once, then this often); each message restarts such a client's idle limit, so keep it under the shortest idle limit of your clients",
  }),
  def({
    key: 'approvalInClient',
    flag: '--approval-in-client',
    valueName: '<on|off>',
    label: 'Ask in the client too',
    group: 'safety',
    spec: onOff,
    persist: true,
    live: true,
    defaultValue: false,
    description:
      "a call held for a person is also put to the person in the client, where the client speaks MCP 2026-07-28 and offers elicitation (input_required, with a sealed state only the client asked can answer with); Airlock's own prompt is asked all the same, and the first answer counts",
  }),
  def({
    key: 'secretStore',
    flag: '--secret-store',
    valueName: '<kind>',
    label: 'Where API keys live',
    group: 'safety',
    spec: choice(SECRET_STORES, { keychain: 'OS keychain', file: 'File in the data dir (headless servers)' }),
    persist: true,
    live: false,
    defaultValue: 'keychain' as SecretStoreChoice,
    description:
      'where API keys live: keychain (the OS keychain) or file (explicit opt-in for headless servers: a 0600 file in the data dir, bannered at every start)',
  }),
  def({
    key: 'auditRetentionDays',
    flag: '--audit-retention-days',
    valueName: '<days>',
    label: 'Audit retention',
    group: 'safety',
    spec: duration(0, 36_500, 'days', { zero: 'keep everything', unbounded: true }),
    persist: true,
    live: false,
    defaultValue: 90,
    description: 'audit records older than this are pruned at start (0 keeps everything)',
  }),
  def({
    key: 'logBufferSize',
    flag: '--log-buffer-size',
    valueName: '<n>',
    label: 'Log lines kept',
    group: 'safety',
    spec: count(100, 1_000_000, 'lines'),
    persist: true,
    live: false,
    defaultValue: 5000,
    description: 'log lines kept in memory for the UI, `server_log` and the control API',
  }),
  def({
    key: 'diagnosticsTools',
    flag: '--diagnostics-tools',
    valueName: '<on|off>',
    label: 'Diagnostics tools',
    group: 'safety',
    spec: onOff,
    persist: true,
    live: false,
    defaultValue: true,
    description:
      'offer the read-only MCP tools server_log, health and get_config (and, where a person has other MCP servers, list_mcp_servers and toggle_mcp_server, whose switch waits for a yes)',
  }),
  def({
    key: 'mcpMessageMb',
    flag: '--mcp-message-mb',
    valueName: '<mb>',
    label: 'Largest message to or from another MCP server',
    group: 'safety',
    spec: size(1, 1024, 'MB'),
    persist: true,
    live: true,
    defaultValue: 10,
    description: "a call's arguments to another MCP server, or a message from one, larger than this is refused, naming this cap",
  }),
  def({
    key: 'directToolsMax',
    flag: '--direct-tools-max',
    valueName: '<n>',
    label: 'Tools offered directly',
    group: 'safety',
    spec: count(1, 1000, 'tools'),
    persist: true,
    live: true,
    defaultValue: 40,
    description:
      'most tools of other MCP servers offered to clients directly, as <server>__<tool> (the rest stay reachable in execute as mcp.<server>.<tool>); many clients slow down or refuse past a few dozen',
  }),
  def({
    key: 'telemetry',
    flag: '--telemetry',
    valueName: '<off|otlp>',
    label: 'Telemetry',
    group: 'safety',
    spec: choice(TELEMETRY_MODES, { off: 'Off', otlp: 'OpenTelemetry (OTLP/HTTP)' }),
    persist: true,
    live: false,
    defaultValue: 'off' as TelemetryMode,
    description:
      'send traces and metrics of MCP requests, calls and approvals to an OpenTelemetry collector over OTLP/HTTP, where the OTEL_EXPORTER_OTLP_* variables say (names, codes and timings only: never keys, bodies, scripts or URLs)',
  }),
  def({
    key: 'telemetryEndpoint',
    flag: '--telemetry-endpoint',
    valueName: '<url>',
    label: 'Telemetry collector',
    group: 'safety',
    spec: text({ format: 'url' }),
    refine: httpUrl,
    persist: true,
    live: false,
    defaultText: 'OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318',
    description: 'the OTLP/HTTP collector telemetry goes to (its /v1/traces and /v1/metrics); wins over OTEL_EXPORTER_OTLP_ENDPOINT',
  }),
  def({
    key: 'syslog',
    flag: '--syslog',
    valueName: '<url>',
    label: 'Forward the audit to syslog',
    group: 'safety',
    spec: text({ format: 'url', maxLength: 500 }),
    refine: (raw: string) => (parseSyslogUrl(raw), raw),
    persist: true,
    live: false,
    defaultText: 'not forwarded',
    description:
      'send each audit record, redacted as the audit keeps it, to syslog as an RFC 5424 message: udp://host:514, tcp://host:601 or tls://host:6514 (a syslog that is down never holds a call up; the local audit stays the record)',
  }),
  def({
    key: 'metrics',
    flag: '--metrics',
    valueName: '<off|token|open>',
    label: 'Prometheus metrics',
    group: 'safety',
    spec: choice(METRICS_ENDPOINTS, { off: 'Off', token: 'On, with the metrics token', open: 'On, open to this machine' }),
    persist: true,
    live: false,
    defaultValue: 'off' as MetricsEndpoint,
    description:
      "serve the companion's metrics in the Prometheus text format at /metrics on its loopback port (airlock serve): token asks for the bearer token in the data dir's metrics-token file (Prometheus: authorization.credentials_file), open asks for none",
  }),
] as const satisfies readonly SettingDef<any>[];
