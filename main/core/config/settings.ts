// Every setting Airlock has, in one table: its flag, its AIRLOCK_* env twin,
// its parser (which names the allowed values when it refuses one) and its
// default. Precedence: flag, then env, then the data dir's settings.json,
// then the default. Secrets are never settings: they come from the keychain
// or from AIRLOCK_API_KEY.
import { LOG_LEVELS, type LogLevel } from '../log/logBuffer.ts';
import { type AuthScheme, AUTH_FORMS, parseAuthScheme } from './auth.ts';
import type { EngineName } from '../sandbox/engine.ts';

export const ENGINES = ['quickjs', 'node', 'deno'] as const satisfies readonly EngineName[];
export const EGRESS_MODES = ['executor', 'wrapper', 'none'] as const;
export type EgressMode = (typeof EGRESS_MODES)[number];
export const SECRET_STORES = ['keychain', 'file'] as const;
export type SecretStoreChoice = (typeof SECRET_STORES)[number];

export class SettingError extends Error {}

export type SettingGroup = 'common' | 'server' | 'sandbox' | 'safety' | 'output';

export interface SettingDef<T = unknown> {
  key: string;
  flag: string;
  /** `<n>`-style placeholder; absent for on/off switches. */
  valueName?: string;
  env: string;
  description: string;
  group: SettingGroup;
  /** Whether settings.json (and the control API) may hold it. */
  persist: boolean;
  parse(raw: string): T;
  defaultValue?: T;
  /** The default as the help and README show it, when it is computed. */
  defaultText?: string;
}

const envName = (flag: string) => 'AIRLOCK_' + flag.replace(/^--/, '').replace(/-/g, '_').toUpperCase();

function integer(min: number, max: number, unit = ''): (raw: string) => number {
  return (raw) => {
    const v = raw.trim();
    if (!/^-?\d+$/.test(v)) throw new SettingError(`'${raw}' is not a whole number (expected ${min}–${max}${unit})`);
    const n = Number(v);
    if (n < min || n > max) throw new SettingError(`${n} is out of range (expected ${min}–${max}${unit})`);
    return n;
  };
}

function oneOf<T extends string>(values: readonly T[]): (raw: string) => T {
  return (raw) => {
    const v = raw.trim() as T;
    if (!values.includes(v)) throw new SettingError(`'${raw}' is not allowed (expected one of ${values.join(', ')})`);
    return v;
  };
}

export function parseBoolean(raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  throw new SettingError(`'${raw}' is not a boolean (expected true/false, 1/0, yes/no)`);
}

function nonEmpty(what: string): (raw: string) => string {
  return (raw) => {
    if (!raw.trim()) throw new SettingError(`${what} cannot be empty`);
    return raw.trim();
  };
}

function httpUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new SettingError(`'${raw}' is not a URL (expected http(s)://host[:port][/path])`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new SettingError(`'${raw}' must be an http or https URL`);
  if (u.username || u.password) throw new SettingError(`'${raw}' carries credentials; put the key in the keychain or AIRLOCK_API_KEY instead`);
  return u.toString().replace(/\/$/, '');
}

function profileName(raw: string): string {
  const v = raw.trim();
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(v)) throw new SettingError(`'${raw}' is not a profile name (lowercase letters, digits, - and _; at most 40)`);
  return v;
}

function authScheme(raw: string): AuthScheme {
  const r = parseAuthScheme(raw);
  if (typeof r === 'string') throw new SettingError(r);
  return r;
}

function def<T>(d: Omit<SettingDef<T>, 'env'> & { env?: string }): SettingDef<T> {
  return { ...d, env: d.env ?? envName(d.flag) } as SettingDef<T>;
}

export const SETTINGS = [
  def({
    key: 'dataDir',
    flag: '--data-dir',
    valueName: '<dir>',
    group: 'common',
    persist: false,
    parse: nonEmpty('the data dir'),
    defaultText: '~/.config/Airlock (Linux), ~/Library/Application Support/Airlock (macOS), %APPDATA%\\Airlock (Windows)',
    description: 'where profiles, tokens, caches and the audit log live',
  }),
  def({
    key: 'profile',
    flag: '--profile',
    valueName: '<name>',
    group: 'common',
    persist: true,
    parse: profileName,
    defaultText: 'demo (or custom when --spec is given)',
    description: 'API profile to serve: demo, openagenda, or one saved in the data dir',
  }),
  def({
    key: 'spec',
    flag: '--spec',
    valueName: '<file|url>',
    group: 'common',
    persist: false,
    parse: nonEmpty('--spec'),
    description: "OpenAPI 3.x document (JSON or YAML, file or http(s) URL); overrides the profile's",
  }),
  def({
    key: 'baseUrl',
    flag: '--base-url',
    valueName: '<url>',
    group: 'common',
    persist: false,
    parse: httpUrl,
    defaultText: "the document's first server",
    description: "API base URL; overrides the profile's",
  }),
  def({
    key: 'auth',
    flag: '--auth',
    valueName: '<scheme>',
    group: 'common',
    persist: false,
    parse: authScheme,
    defaultText: "the profile's, else what the document declares",
    description: `how the key is sent: ${AUTH_FORMS}`,
  }),
  def({
    key: 'refreshSpec',
    flag: '--refresh-spec',
    group: 'common',
    persist: false,
    parse: parseBoolean,
    defaultValue: false,
    description: 'refetch a URL document instead of using the cached copy',
  }),
  def({
    key: 'logLevel',
    flag: '--log-level',
    valueName: '<level>',
    group: 'common',
    persist: true,
    parse: oneOf(LOG_LEVELS),
    defaultValue: 'info' as LogLevel,
    description: `minimum level written to stderr: ${LOG_LEVELS.join(', ')}`,
  }),
  def({
    key: 'port',
    flag: '--port',
    valueName: '<n>',
    group: 'server',
    persist: true,
    parse: integer(0, 65535),
    defaultValue: 7339,
    description: 'loopback port of `serve` (0 picks a free one)',
  }),
  def({
    key: 'host',
    flag: '--host',
    valueName: '<addr>',
    group: 'server',
    persist: false,
    parse: nonEmpty('--host'),
    defaultValue: '127.0.0.1',
    description: 'address to bind; anything but loopback needs --dangerously-allow-non-loopback',
  }),
  def({
    key: 'dangerouslyAllowNonLoopback',
    flag: '--dangerously-allow-non-loopback',
    group: 'server',
    persist: false,
    parse: parseBoolean,
    defaultValue: false,
    description: 'let --host bind a non-loopback address (exposes the server to the network; the token is still required)',
  }),
  def({
    key: 'exitWhenIdle',
    flag: '--exit-when-idle',
    valueName: '<seconds>',
    group: 'server',
    persist: false,
    parse: integer(0, 86_400),
    defaultValue: 0,
    description:
      '`serve` exits after this many seconds with no MCP client, run or pending approval (0: never); the companion `airlock stdio` starts in the background uses 300',
  }),
  def({
    key: 'ui',
    flag: '--ui',
    group: 'server',
    persist: false,
    parse: parseBoolean,
    defaultValue: false,
    description: 'serve the web UI under /ui/ (open it with `airlock open`); the desktop app always has it',
  }),
  def({
    key: 'startAtLogin',
    flag: '--start-at-login',
    group: 'server',
    persist: true,
    parse: parseBoolean,
    defaultValue: false,
    description: 'desktop app: start with the login session (in the tray)',
  }),
  def({
    key: 'autoUpdate',
    flag: '--auto-update',
    group: 'server',
    persist: true,
    parse: parseBoolean,
    defaultValue: false,
    description:
      'desktop app: check for a new version at start and once a day, download it, and install it when you quit (never while approvals wait); off by default',
  }),
  def({
    key: 'theme',
    flag: '--theme',
    valueName: '<theme>',
    group: 'server',
    persist: true,
    parse: oneOf(['system', 'light', 'dark'] as const),
    defaultValue: 'system',
    description: 'UI theme: system (follow the OS), light or dark',
  }),
  def({
    key: 'engine',
    flag: '--engine',
    valueName: '<name>',
    group: 'sandbox',
    persist: true,
    parse: oneOf(ENGINES),
    defaultValue: 'quickjs' as EngineName,
    description: `sandbox engine for execute: ${ENGINES.join(', ')}`,
  }),
  def({
    key: 'egress',
    flag: '--egress',
    valueName: '<mode>',
    group: 'sandbox',
    persist: true,
    parse: oneOf(EGRESS_MODES),
    defaultText: 'executor (wrapper for node)',
    description: "who bounds the sandbox's network: executor (the engine itself), wrapper (srt), none",
  }),
  def({
    key: 'allowUnrestrictedEgress',
    flag: '--allow-unrestricted-egress',
    group: 'sandbox',
    persist: false,
    parse: parseBoolean,
    defaultValue: false,
    description: 'accept --engine deno --egress none (sandboxed code can reach any host)',
  }),
  def({
    key: 'timeoutMs',
    flag: '--timeout-ms',
    valueName: '<ms>',
    group: 'sandbox',
    persist: true,
    parse: integer(100, 600_000, ' ms'),
    defaultValue: 5000,
    description: 'wall-clock limit of one execute (time waiting for a human is not counted)',
  }),
  def({
    key: 'memoryMb',
    flag: '--memory-mb',
    valueName: '<mb>',
    group: 'sandbox',
    persist: true,
    parse: integer(16, 8192, ' MB'),
    defaultValue: 256,
    description: 'memory cap of one execute',
  }),
  def({
    key: 'sandboxMemoryMb',
    flag: '--sandbox-memory-mb',
    valueName: '<mb>',
    group: 'sandbox',
    persist: true,
    parse: integer(16, 65_536, ' MB'),
    defaultValue: 384,
    defaultText: '384 (--memory-mb when that is larger)',
    description: 'memory budget of all QuickJS sandboxes together (the runs in flight share it); at least --memory-mb',
  }),
  def({
    key: 'outputKb',
    flag: '--output-kb',
    valueName: '<kb>',
    group: 'sandbox',
    persist: true,
    parse: integer(1, 65_536, ' KiB'),
    defaultValue: 1024,
    description: 'cap on what one execute returns (result + console), in KiB',
  }),
  def({
    key: 'maxConcurrent',
    flag: '--max-concurrent',
    valueName: '<n>',
    group: 'sandbox',
    persist: true,
    parse: integer(1, 256),
    defaultValue: 4,
    description: 'executes running at once, all clients together',
  }),
  def({
    key: 'queueSize',
    flag: '--queue-size',
    valueName: '<n>',
    group: 'sandbox',
    persist: true,
    parse: integer(0, 10_000),
    defaultValue: 32,
    description: 'executes waiting for a slot before "at capacity"',
  }),
  def({
    key: 'queueTimeoutMs',
    flag: '--queue-timeout-ms',
    valueName: '<ms>',
    group: 'sandbox',
    persist: true,
    parse: integer(0, 600_000, ' ms'),
    defaultValue: 10_000,
    description: 'longest wait in the queue before "at capacity"',
  }),
  def({
    key: 'perCallerConcurrent',
    flag: '--per-caller-concurrent',
    valueName: '<n>',
    group: 'sandbox',
    persist: true,
    parse: integer(1, 256),
    defaultValue: 2,
    description: 'executes one client may run at once',
  }),
  def({
    key: 'rateLimit',
    flag: '--rate-limit',
    valueName: '<per-second>',
    group: 'sandbox',
    persist: true,
    parse: integer(0, 100_000),
    defaultValue: 20,
    description: 'API calls per second per client (token bucket; 0 = unlimited)',
  }),
  def({
    key: 'rateBurst',
    flag: '--rate-burst',
    valueName: '<n>',
    group: 'sandbox',
    persist: true,
    parse: integer(1, 100_000),
    defaultValue: 40,
    description: 'API calls a client may make in a burst',
  }),
  def({
    key: 'killSwitch',
    flag: '--kill-switch',
    group: 'sandbox',
    persist: true,
    parse: parseBoolean,
    defaultValue: false,
    description: 'refuse every execute (search_docs keeps serving)',
  }),
  def({
    key: 'approvalTimeoutMs',
    flag: '--approval-timeout-ms',
    valueName: '<ms>',
    group: 'safety',
    persist: true,
    parse: integer(1000, 3_600_000, ' ms'),
    defaultValue: 120_000,
    description: 'how long a mutation waits for a person before it is denied',
  }),
  def({
    key: 'secretStore',
    flag: '--secret-store',
    valueName: '<kind>',
    group: 'safety',
    persist: true,
    parse: oneOf(SECRET_STORES),
    defaultValue: 'keychain' as SecretStoreChoice,
    description:
      'where API keys live: keychain (the OS keychain) or file (explicit opt-in for headless servers: a 0600 file in the data dir, bannered at every start)',
  }),
  def({
    key: 'auditRetentionDays',
    flag: '--audit-retention-days',
    valueName: '<days>',
    group: 'safety',
    persist: true,
    parse: integer(0, 36_500, ' days'),
    defaultValue: 90,
    description: 'audit records older than this are pruned at start (0 keeps everything)',
  }),
  def({
    key: 'logBufferSize',
    flag: '--log-buffer-size',
    valueName: '<n>',
    group: 'safety',
    persist: true,
    parse: integer(100, 1_000_000),
    defaultValue: 5000,
    description: 'log lines kept in memory for the UI, `server_log` and the control API',
  }),
  def({
    key: 'diagnosticsTools',
    flag: '--diagnostics-tools',
    valueName: '<on|off>',
    group: 'safety',
    persist: true,
    parse: parseBoolean,
    defaultValue: true,
    description: 'offer the read-only MCP tools server_log, health and get_config',
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
  logLevel: LogLevel;
  port: number;
  host: string;
  dangerouslyAllowNonLoopback: boolean;
  exitWhenIdle: number;
  ui: boolean;
  startAtLogin: boolean;
  autoUpdate: boolean;
  theme: 'system' | 'light' | 'dark';
  engine: EngineName;
  egress?: EgressMode;
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
  secretStore: SecretStoreChoice;
  auditRetentionDays: number;
  logBufferSize: number;
  diagnosticsTools: boolean;
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
        throw new SettingError(`${s.env}: ${(error as Error).message}`);
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
