// Every setting Airlock has, in one table: its flag, its AIRLOCK_* env twin,
// its label, its declared type with limits or choices, whether it applies
// live, and its default. The rows are declared by group, in the table's order
// (settingsCommon.ts, settingsServer.ts, settingsSandbox.ts,
// settingsSafety.ts), each with def() from settingDef.ts. Everything else is
// derived from the row: the parser the command line, env vars, settings.json
// and the control API use (the contract's checkSettingValue over the row's
// spec, which names the allowed values when it refuses one), the metadata the
// settings form gets (settingsMeta.ts), and the set of live settings. The
// order of the table is the order of --help, the docs and the Settings
// screen. Precedence (resolveSettings.ts): flag, then env, then the data
// dir's settings.json, then the default. Secrets are never settings: they
// come from the keychain or from AIRLOCK_API_KEY.
import type { LogLevel } from '../log/logBuffer.ts';
import type { AuthScheme } from './auth.ts';
import type { SettingDef } from './settingDef.ts';
import { COMMON_SETTINGS } from './settingsCommon.ts';
import { SERVER_SETTINGS } from './settingsServer.ts';
import { SANDBOX_SETTINGS, type EngineName, type NetworkMode } from './settingsSandbox.ts';
import { SAFETY_SETTINGS, type MetricsEndpoint, type SecretStoreChoice, type TelemetryMode } from './settingsSafety.ts';

/** The values of the settings `engine` and `egress`, declared with their rows; here beside the type of all the settings. */
export { ENGINES, NETWORK_MODES, type EngineName, type NetworkMode } from './settingsSandbox.ts';

export const SETTINGS = [...COMMON_SETTINGS, ...SERVER_SETTINGS, ...SANDBOX_SETTINGS, ...SAFETY_SETTINGS] as const satisfies readonly SettingDef<any>[];

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
  approvalProgressEveryMs: number;
  approvalInClient: boolean;
  secretStore: SecretStoreChoice;
  auditRetentionDays: number;
  logBufferSize: number;
  diagnosticsTools: boolean;
  directToolsMax: number;
  mcpMessageMb: number;
  telemetry: TelemetryMode;
  telemetryEndpoint?: string;
  metrics: MetricsEndpoint;
  syslog?: string;
}

export function settingByKey(key: string): SettingDef<any> | undefined {
  return (SETTINGS as readonly SettingDef<any>[]).find((s) => s.key === key);
}
