// Every setting Airlock has, in one table: its flag, its AIRLOCK_* env twin,
// its label, its declared type with limits or choices, whether it applies
// live, and its default. Everything else is derived from the row: the parser
// the command line, env vars, settings.json and the control API use (the
// contract's checkSettingValue over the row's spec, which names the allowed
// values when it refuses one), the metadata the settings form gets
// (settingsMeta.ts), and the set of live settings. Precedence: flag, then
// env, then the data dir's settings.json, then the default. Secrets are never
// settings: they come from the keychain or from AIRLOCK_API_KEY.
import { LOG_LEVELS, type LogLevel } from '../log/logBuffer.ts';
import type { ChoiceSettingSpec, NumericSettingSpec, SettingGroup, SettingSpec, TextSettingSpec } from '../../../contract/settings.ts';
import { checkSettingValue } from '../../../contract/settingCheck.ts';
import { type AuthScheme, AUTH_FORMS, parseAuthScheme } from './auth.ts';
import { messageOf } from '../../../contract/values.ts';

export type { SettingGroup } from '../../../contract/settings.ts';
import { ENGINES, NETWORK_MODES } from '../../../contract/names.ts';

/** The sandbox engines a run can use, and the sandbox's network boundary (the setting named `egress`): one list, in the contract. */
export { ENGINES, NETWORK_MODES };
export type EngineName = (typeof ENGINES)[number];
export type NetworkMode = (typeof NETWORK_MODES)[number];
export const SECRET_STORES = ['keychain', 'file'] as const;
export type SecretStoreChoice = (typeof SECRET_STORES)[number];
export const THEMES = ['system', 'light', 'dark'] as const;

export class SettingError extends Error {}

export interface SettingDef<T = unknown> {
  key: string;
  flag: string;
  /** `<n>`-style placeholder; absent for on/off switches. */
  valueName?: string;
  env: string;
  /** What the settings form calls it. */
  label: string;
  description: string;
  group: SettingGroup;
  /** The type with its limits (numbers), choices (choice) or pattern (text): the one source of validation and of the form's control. */
  spec: SettingSpec;
  /** Whether settings.json (and the control API) may hold it. */
  persist: boolean;
  /** Whether a saved change applies to the running companion at once (the next run sees it) rather than after a restart. */
  live: boolean;
  /** Checks the spec cannot express, after it passed (URLs, auth schemes); throws SettingError. */
  refine?(value: string): T;
  /** Derived from spec (and refine): reads a flag, env or settings.json value, or throws SettingError naming what is allowed. */
  parse(raw: string): T;
  defaultValue?: T;
  /** The default as the help and README show it, when it is computed. */
  defaultText?: string;
}

const envName = (flag: string) => 'AIRLOCK_' + flag.replace(/^--/, '').replace(/-/g, '_').toUpperCase();

type NumericOptions = { step?: number; zero?: string };

/** A whole number that counts something (runs, calls, lines); `unit` is what it counts. */
function count(min: number, max: number, unit?: string, o: NumericOptions = {}): NumericSettingSpec {
  return { type: 'integer', min, max, step: o.step ?? 1, ...(unit ? { unit } : {}), ...(o.zero ? { zero: o.zero } : {}) };
}

function duration(min: number, max: number, unit: 'ms' | 's' | 'days', o: NumericOptions = {}): NumericSettingSpec {
  return { type: 'duration', min, max, step: o.step ?? 1, unit, ...(o.zero ? { zero: o.zero } : {}) };
}

function size(min: number, max: number, unit: 'MB' | 'KiB', o: NumericOptions = {}): NumericSettingSpec {
  return { type: 'size', min, max, step: o.step ?? 1, unit, ...(o.zero ? { zero: o.zero } : {}) };
}

const onOff: SettingSpec = { type: 'boolean' };

/** One of `values`, each with the label the form shows. */
function choice<T extends string>(values: readonly T[], labels: Record<T, string>): ChoiceSettingSpec {
  return { type: 'choice', choices: values.map((value) => ({ value, label: labels[value] })) };
}

function text(o: Omit<TextSettingSpec, 'type'> = {}): TextSettingSpec {
  return { type: 'text', ...o };
}

/** Kept for callers that read a yes/no themselves; the table's booleans go through the same check. */
export function parseBoolean(raw: string): boolean {
  return parseWith(onOff, raw) as boolean;
}

function parseWith(spec: SettingSpec, raw: string): string | number | boolean {
  const r = checkSettingValue(spec, raw);
  if (!r.ok) throw new SettingError(r.message);
  return r.value;
}

function httpUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new SettingError(`'${raw}' is not a URL (expected http(s)://host[:port][/path])`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new SettingError(`'${raw}' must be an http or https URL`);
  if (u.username || u.password) throw new SettingError(`'${raw}' carries credentials; put the key in the keychain or AIRLOCK_API_KEY instead`);
  return u.toString().replace(/\/$/, '');
}

function authScheme(raw: string): AuthScheme {
  const r = parseAuthScheme(raw);
  if (typeof r === 'string') throw new SettingError(r);
  return r;
}

type SettingDecl<T> = Omit<SettingDef<T>, 'env' | 'parse'> & { env?: string };

function def<const K extends string, T>(d: SettingDecl<T> & { key: K }): SettingDef<T> & { key: K } {
  const { refine } = d;
  return {
    ...d,
    env: d.env ?? envName(d.flag),
    parse: (raw: string) => {
      const value = parseWith(d.spec, raw);
      return (refine ? refine(value as string) : value) as T;
    },
  };
}

export const SETTINGS = [
  def({
    key: 'dataDir',
    flag: '--data-dir',
    valueName: '<dir>',
    label: 'Data directory',
    group: 'common',
    spec: text({ format: 'path' }),
    persist: false,
    live: false,
    defaultText: '~/.config/Airlock (Linux), ~/Library/Application Support/Airlock (macOS), %APPDATA%\\Airlock (Windows)',
    description: 'where profiles, tokens, caches and the audit log live',
  }),
  def({
    key: 'profile',
    flag: '--profile',
    valueName: '<name>',
    label: 'API profile',
    group: 'common',
    spec: text({
      format: 'name',
      pattern: '^[a-z0-9][a-z0-9_-]{0,39}$',
      maxLength: 40,
      patternHint: 'a profile name (lowercase letters, digits, - and _; at most 40)',
    }),
    persist: true,
    live: false,
    defaultText: 'demo (or custom when --spec is given)',
    description: 'serve this API profile alone (demo, openagenda, or one saved in the data dir); without it, every enabled API',
  }),
  def({
    key: 'spec',
    flag: '--spec',
    valueName: '<file|url>',
    label: 'OpenAPI document',
    group: 'common',
    spec: text({ format: 'location' }),
    persist: false,
    live: false,
    description: "OpenAPI 3.x document (JSON or YAML, file or http(s) URL); overrides the profile's",
  }),
  def({
    key: 'baseUrl',
    flag: '--base-url',
    valueName: '<url>',
    label: 'API base URL',
    group: 'common',
    spec: text({ format: 'url' }),
    refine: httpUrl,
    persist: false,
    live: false,
    defaultText: "the document's first server",
    description: "API base URL; overrides the profile's",
  }),
  def({
    key: 'auth',
    flag: '--auth',
    valueName: '<scheme>',
    label: 'Auth scheme',
    group: 'common',
    spec: text({ format: 'auth' }),
    refine: authScheme,
    persist: false,
    live: false,
    defaultText: "the profile's, else what the document declares",
    description: `how the key is sent: ${AUTH_FORMS}`,
  }),
  def({
    key: 'refreshSpec',
    flag: '--refresh-spec',
    label: 'Refetch the document',
    group: 'common',
    spec: onOff,
    persist: false,
    live: false,
    defaultValue: false,
    description: 'refetch a URL document instead of using the cached copy',
  }),
  def({
    key: 'specMaxMb',
    flag: '--spec-max-mb',
    valueName: '<mb>',
    label: 'Largest API document',
    group: 'common',
    spec: size(1, 1024, 'MB'),
    persist: true,
    live: true,
    defaultValue: 64,
    description: 'an OpenAPI document (file or URL) larger than this is refused, with this cap named',
  }),
  def({
    key: 'prepareMemoryMb',
    flag: '--prepare-memory-mb',
    valueName: '<mb>',
    label: 'Memory to prepare a document',
    group: 'common',
    spec: size(64, 16_384, 'MB'),
    persist: true,
    live: true,
    defaultValue: 1024,
    description:
      'heap cap of the worker that parses and indexes an API document (apart from serving); a document that needs more is refused, with this cap named',
  }),
  def({
    key: 'logLevel',
    flag: '--log-level',
    valueName: '<level>',
    label: 'Log level',
    group: 'common',
    spec: choice(LOG_LEVELS, { debug: 'Debug', info: 'Info', warn: 'Warnings', error: 'Errors only' }),
    persist: true,
    live: false,
    defaultValue: 'info' as LogLevel,
    description: `minimum level written to stderr: ${LOG_LEVELS.join(', ')}`,
  }),
  def({
    key: 'port',
    flag: '--port',
    valueName: '<n>',
    label: 'Port',
    group: 'server',
    spec: count(0, 65535, undefined, { zero: 'a free port' }),
    persist: true,
    live: false,
    defaultValue: 7339,
    description: 'loopback port of `serve` (0 picks a free one)',
  }),
  def({
    key: 'host',
    flag: '--host',
    valueName: '<addr>',
    label: 'Bind address',
    group: 'server',
    spec: text({ format: 'host' }),
    persist: false,
    live: false,
    defaultValue: '127.0.0.1',
    description: 'address to bind; anything but loopback needs --dangerously-allow-non-loopback',
  }),
  def({
    key: 'dangerouslyAllowNonLoopback',
    flag: '--dangerously-allow-non-loopback',
    label: 'Allow a non-loopback address',
    group: 'server',
    spec: onOff,
    persist: false,
    live: false,
    defaultValue: false,
    description: 'let --host bind a non-loopback address (exposes the server to the network; the token is still required)',
  }),
  def({
    key: 'exitWhenIdle',
    flag: '--exit-when-idle',
    valueName: '<seconds>',
    label: 'Exit when idle after',
    group: 'server',
    spec: duration(0, 86_400, 's', { zero: 'never' }),
    persist: false,
    live: false,
    defaultValue: 0,
    description:
      '`serve` exits after this many seconds with no MCP client, run or pending approval (0: never); the companion `airlock stdio` starts in the background uses 300',
  }),
  def({
    key: 'httpSessionIdle',
    flag: '--http-session-idle',
    valueName: '<seconds>',
    label: 'End an idle HTTP session after',
    group: 'server',
    spec: duration(60, 86_400, 's'),
    persist: true,
    live: true,
    defaultValue: 1800,
    description:
      'an MCP session over HTTP with no request, no call in flight and no open event stream for this long ends (its client went away without saying so; it initializes again if it comes back)',
  }),
  def({
    key: 'ui',
    flag: '--ui',
    label: 'Serve the web UI',
    group: 'server',
    spec: onOff,
    persist: false,
    live: false,
    defaultValue: false,
    description: 'serve the web UI under /ui/ (open it with `airlock open`); the desktop app always has it',
  }),
  def({
    key: 'startAtLogin',
    flag: '--start-at-login',
    label: 'Start at login',
    group: 'server',
    spec: onOff,
    persist: true,
    live: false,
    defaultValue: false,
    description: 'desktop app: start with the login session (in the tray)',
  }),
  def({
    key: 'autoUpdate',
    flag: '--auto-update',
    label: 'Automatic updates',
    group: 'server',
    spec: onOff,
    persist: true,
    live: true,
    defaultValue: false,
    description:
      'desktop app: check for a new version at start and once a day, download it, and install it when you quit (never while approvals wait); off by default',
  }),
  def({
    key: 'theme',
    flag: '--theme',
    valueName: '<theme>',
    label: 'Theme',
    group: 'server',
    spec: choice(THEMES, { system: 'System (follow the OS)', light: 'Light', dark: 'Dark' }),
    persist: true,
    live: true,
    defaultValue: 'system',
    description: 'UI theme: system (follow the OS), light or dark',
  }),
  def({
    key: 'engine',
    flag: '--engine',
    valueName: '<name>',
    label: 'Sandbox engine',
    group: 'sandbox',
    spec: choice(ENGINES, { quickjs: 'QuickJS (in process)', node: 'Node (subprocess)', deno: 'Deno (subprocess)' }),
    persist: true,
    live: false,
    defaultValue: 'quickjs' as EngineName,
    description: `sandbox engine for execute: ${ENGINES.join(', ')}`,
  }),
  def({
    key: 'egress',
    flag: '--egress',
    valueName: '<mode>',
    label: 'Network boundary (egress)',
    group: 'sandbox',
    spec: choice(NETWORK_MODES, { executor: 'Executor (the engine itself)', wrapper: 'Wrapper (srt)', none: 'None (unbounded)' }),
    persist: true,
    live: false,
    defaultText: 'executor (wrapper for node)',
    description: "who bounds the sandbox's network: executor (the engine itself), wrapper (srt), none",
  }),
  def({
    key: 'allowUnrestrictedEgress',
    flag: '--allow-unrestricted-egress',
    label: 'Allow unrestricted egress',
    group: 'sandbox',
    spec: onOff,
    persist: false,
    live: false,
    defaultValue: false,
    description: 'accept --engine deno --egress none (sandboxed code can reach any host)',
  }),
  def({
    key: 'timeoutMs',
    flag: '--timeout-ms',
    valueName: '<ms>',
    label: 'Timeout per run',
    group: 'sandbox',
    spec: duration(100, 600_000, 'ms'),
    persist: true,
    live: true,
    defaultValue: 5000,
    description: 'wall-clock limit of one execute (time waiting for a human is not counted)',
  }),
  def({
    key: 'memoryMb',
    flag: '--memory-mb',
    valueName: '<mb>',
    label: 'Memory per run',
    group: 'sandbox',
    spec: size(16, 8192, 'MB'),
    persist: true,
    live: true,
    defaultValue: 256,
    description: 'memory cap of one execute',
  }),
  def({
    key: 'sandboxMemoryMb',
    flag: '--sandbox-memory-mb',
    valueName: '<mb>',
    label: 'Memory of all sandboxes',
    group: 'sandbox',
    spec: size(16, 65_536, 'MB'),
    persist: true,
    live: false,
    defaultValue: 384,
    defaultText: '384 (--memory-mb when that is larger)',
    description: 'memory budget of all QuickJS sandboxes together (the runs in flight share it); at least --memory-mb',
  }),
  def({
    key: 'outputKb',
    flag: '--output-kb',
    valueName: '<kb>',
    label: 'Output per run',
    group: 'sandbox',
    spec: size(1, 65_536, 'KiB'),
    persist: true,
    live: true,
    defaultValue: 1024,
    description: 'cap on what one execute returns (result + console), in KiB',
  }),
  def({
    key: 'maxConcurrent',
    flag: '--max-concurrent',
    valueName: '<n>',
    label: 'Runs at once',
    group: 'sandbox',
    spec: count(1, 256, 'runs'),
    persist: true,
    live: true,
    defaultValue: 4,
    description: 'executes running at once, all clients together',
  }),
  def({
    key: 'queueSize',
    flag: '--queue-size',
    valueName: '<n>',
    label: 'Queue size',
    group: 'sandbox',
    spec: count(0, 10_000, 'runs', { zero: 'no queue' }),
    persist: true,
    live: true,
    defaultValue: 32,
    description: 'executes waiting for a slot before "at capacity"',
  }),
  def({
    key: 'queueTimeoutMs',
    flag: '--queue-timeout-ms',
    valueName: '<ms>',
    label: 'Longest wait in the queue',
    group: 'sandbox',
    spec: duration(0, 600_000, 'ms', { zero: 'no wait' }),
    persist: true,
    live: true,
    defaultValue: 10_000,
    description: 'longest wait in the queue before "at capacity"',
  }),
  def({
    key: 'perCallerConcurrent',
    flag: '--per-caller-concurrent',
    valueName: '<n>',
    label: 'Runs at once per client',
    group: 'sandbox',
    spec: count(1, 256, 'runs'),
    persist: true,
    live: true,
    defaultValue: 2,
    description: 'executes one client may run at once',
  }),
  def({
    key: 'rateLimit',
    flag: '--rate-limit',
    valueName: '<per-second>',
    label: 'Rate limit',
    group: 'sandbox',
    spec: count(0, 100_000, 'calls/s', { zero: 'unlimited' }),
    persist: true,
    live: true,
    defaultValue: 20,
    description: 'API calls per second per client (token bucket; 0 = unlimited)',
  }),
  def({
    key: 'rateBurst',
    flag: '--rate-burst',
    valueName: '<n>',
    label: 'Rate burst',
    group: 'sandbox',
    spec: count(1, 100_000, 'calls'),
    persist: true,
    live: true,
    defaultValue: 40,
    description: 'API calls a client may make in a burst',
  }),
  def({
    key: 'killSwitch',
    flag: '--kill-switch',
    label: 'Kill switch',
    group: 'sandbox',
    spec: onOff,
    persist: true,
    live: true,
    defaultValue: false,
    description: 'refuse every execute (search_docs keeps serving)',
  }),
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
    spec: duration(0, 36_500, 'days', { zero: 'keep everything' }),
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
] as const satisfies readonly SettingDef<any>[];

export type SettingKey = (typeof SETTINGS)[number]['key'];

export interface Settings {
  dataDir: string;
  profile?: string;
  spec?: string;
  baseUrl?: string;
  auth?: AuthScheme;
  refreshSpec: boolean;
  specMaxMb: number;
  prepareMemoryMb: number;
  logLevel: LogLevel;
  port: number;
  host: string;
  dangerouslyAllowNonLoopback: boolean;
  exitWhenIdle: number;
  httpSessionIdle: number;
  ui: boolean;
  startAtLogin: boolean;
  autoUpdate: boolean;
  theme: 'system' | 'light' | 'dark';
  engine: EngineName;
  egress?: NetworkMode;
  allowUnrestrictedEgress: boolean;
  timeoutMs: number;
  memoryMb: number;
  sandboxMemoryMb: number;
  outputKb: number;
  maxConcurrent: number;
  queueSize: number;
  queueTimeoutMs: number;
  perCallerConcurrent: number;
  rateLimit: number;
  rateBurst: number;
  killSwitch: boolean;
  approvalTimeoutMs: number;
  approvalReplyAfterMs: number;
  secretStore: SecretStoreChoice;
  auditRetentionDays: number;
  logBufferSize: number;
  diagnosticsTools: boolean;
  directToolsMax: number;
  mcpMessageMb: number;
}

export type SettingSource = 'flag' | 'env' | 'file' | 'default';

export interface ResolvedSettings {
  settings: Settings;
  sources: Record<string, SettingSource>;
}

export function settingByKey(key: string): SettingDef<any> | undefined {
  return (SETTINGS as readonly SettingDef<any>[]).find((s) => s.key === key);
}

export interface SettingInputs {
  /** Raw values given as flags (already parsed by their parser), keyed by setting key. */
  flags: Record<string, unknown>;
  env: Record<string, string | undefined>;
  /** settings.json contents (already validated), keyed by setting key. */
  file: Record<string, unknown>;
  defaultDataDir: string;
}

/**
 * Merges flags, env, settings.json and defaults. An env value that does not
 * parse is a usage error naming the variable and the allowed values.
 */
export function resolveSettings(inputs: SettingInputs): ResolvedSettings {
  const values: Record<string, unknown> = {};
  const sources: Record<string, SettingSource> = {};
  for (const s of SETTINGS as readonly SettingDef<any>[]) {
    if (inputs.flags[s.key] !== undefined) {
      values[s.key] = inputs.flags[s.key];
      sources[s.key] = 'flag';
      continue;
    }
    const raw = inputs.env[s.env];
    if (raw !== undefined && raw !== '') {
      try {
        values[s.key] = s.parse(raw);
      } catch (error) {
        throw new SettingError(`${s.env}: ${messageOf(error)}`);
      }
      sources[s.key] = 'env';
      continue;
    }
    if (s.persist && inputs.file[s.key] !== undefined) {
      values[s.key] = inputs.file[s.key];
      sources[s.key] = 'file';
      continue;
    }
    if (s.key === 'dataDir') values[s.key] = inputs.defaultDataDir;
    else if (s.defaultValue !== undefined) values[s.key] = s.defaultValue;
    sources[s.key] = 'default';
  }
  const settings = values as unknown as Settings;
  // One run alone must be able to reach its own cap: the shared budget is at least one run's.
  if (settings.sandboxMemoryMb < settings.memoryMb) {
    if (sources.sandboxMemoryMb !== 'default') {
      throw new SettingError(
        `--sandbox-memory-mb (${settings.sandboxMemoryMb} MB) must be at least --memory-mb (${settings.memoryMb} MB): the sandboxes' shared budget has to hold one run at its cap`,
      );
    }
    settings.sandboxMemoryMb = settings.memoryMb;
  }
  return { settings, sources };
}
