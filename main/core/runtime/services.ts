// The narrow services a running companion is made of, each with the small
// interface its users need. companion.ts builds every one of them once, in
// order, from the few it depends on; each group of control handlers asks for
// the few it reads (`Pick<Services, …>`), so a handler test builds only those.
import type { DataPaths } from '../config/dataDir.ts';
import type { EngineName, NetworkMode, Settings } from '../config/settings.ts';
import type { ResolvedSettings } from '../config/resolveSettings.ts';
import type { ManagedRead } from '../config/managedPolicy.ts';
import type { Logger } from '../log/logger.ts';
import type { LogBuffer } from '../log/logBuffer.ts';
import type { SandboxEngine } from '../sandbox/engine.ts';
import type { SecretStore } from '../secrets/secretStore.ts';
import type { Credentials } from '../secrets/credentials.ts';
import type { AuditStore } from '../audit/auditStore.ts';
import type { ApprovalBroker } from '../approvals/approvalBroker.ts';
import type { ExecuteService } from '../execute/executeService.ts';
import type { ExecutionCaps } from '../execute/caps.ts';
import type { SessionRegistry } from '../mcp/sessionRegistry.ts';
import type { EventHub } from '../control/eventHub.ts';
import type { ServedApis } from './servedApis.ts';
import type { UpstreamServers } from '../upstream/upstreamServers.ts';
import type { ServerStore } from '../upstream/serverStore.ts';
import type { PinStore } from '../upstream/toolPins.ts';
import type { ToolGate } from '../upstream/toolGate.ts';
import type { Preparation } from '../search/preparation.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';

export type CompanionMode = 'serve' | 'stdio';

/** What this companion is and where it keeps its files. */
export interface CompanionInfo {
  readonly version: string;
  readonly mode: CompanionMode;
  readonly startedAt: Date;
  readonly paths: DataPaths;
}

/** The settings in effect, where each came from, and the one way a live change is made (liveSettings.ts). */
export interface LiveSettings {
  /** The values in effect (changed only through `set`). */
  readonly values: Readonly<Settings>;
  readonly sources: Readonly<ResolvedSettings['sources']>;
  /** The organisation's managed file as read at start (what it fixes has the source `managed`). */
  managed?: ManagedRead;
  /** Changes live settings, as read from the settings file, and puts them into effect: every listener hears the keys. */
  set(changes: Partial<Settings>): void;
  /**
   * The organisation's managed policy changed: its fixed values of live settings take effect at once (source
   * `managed`); the others are named, to apply at the next start. Values it no longer fixes stay until then.
   */
  applyManaged(values: Record<string, unknown>, read: ManagedRead): { applied: string[]; atRestart: string[] };
  /** Called with the keys of each change `set` makes. */
  onApplied(listener: (keys: (keyof Settings)[]) => void): void;
}

/** The process's log: the logger, its ring buffer, and the redactor every line goes through. */
export interface Logs {
  readonly logger: Logger;
  readonly buffer: LogBuffer;
  redact(text: string): string;
}

/** Where API keys live, and the key of the API meant where one is (the primary; with none, the store alone). */
export interface Keys {
  readonly store: SecretStore;
  readonly credentials: Credentials;
  /** A profile's key was set or removed: its served API resolves it again at its next call. */
  invalidate(profile: string): void;
}

/** The sandbox network and what it means, as status and the Engine screen show them. */
export interface EngineState {
  engine: EngineName;
  network: NetworkMode;
  /** A warning shown while the combination is in effect (an unbounded network). */
  banner?: string;
  /** What the engine itself bounds, in words (the start of every boundary text). */
  engineBoundary: string;
  /** What the deployment enforces for every API served, in words (the Overview; a session's execute tool says it for its APIs). */
  boundary: string;
}

/** The sandbox engine runs use, and switching it while the companion runs. */
export interface Engines {
  readonly engine: SandboxEngine;
  state(): EngineState;
  /** The next run uses the new engine; runs already going finish on the previous one. */
  switchTo(choice: { engine: EngineName; network: NetworkMode; acknowledgeUnrestricted?: boolean }): Promise<void>;
}

/** Runs of execute and the caps they share. */
export interface Runs {
  readonly execute: ExecuteService;
  readonly caps: ExecutionCaps;
}

/**
 * What the host that serves the companion provides (the loopback server, the desktop shell), passed in at
 * construction. Each is read when asked, so it may depend on what the host builds around the companion.
 */
export interface Host {
  /** Where MCP is served over HTTP, once it is. */
  mcpUrl?(): string | undefined;
  /** Present when the web UI is served. */
  loginLink?(): { url: string; expiresAt: string };
  /** A new MCP token; the old one is refused from now on. Present when MCP is served over HTTP. */
  rotateMcpToken?(): { file: string; endedSessions: number };
  /** How the OS treats the desktop shell's notifications. Present in the desktop app. */
  desktop?(): { notifications: 'enabled' | 'unsupported' | 'failed'; detail?: string };
}

export interface Services {
  info: CompanionInfo;
  settings: LiveSettings;
  logs: Logs;
  /** Prepares API documents (in a worker thread, one at a time) and opens what they prepared. */
  preparation: Preparation;
  /** Every API served, each with its key and gate. */
  apis: ServedApis;
  keys: Keys;
  audit: AuditStore;
  broker: ApprovalBroker;
  engines: Engines;
  /** Other MCP servers behind the gate (issue 20). */
  upstream: UpstreamServers;
  /** servers.json, read and written through this one store. */
  serverEntries: ServerStore;
  /** What a person accepted of each server's tools. */
  serverReviews: PinStore;
  /** The gate every call to one of their tools goes through (scripts' and clients' direct calls alike). */
  toolGate: ToolGate;
  runs: Runs;
  sessions: SessionRegistry;
  hub: EventHub;
  host: Host;
  /** What the companion tells an organisation's monitoring (OpenTelemetry, Prometheus); NO_TELEMETRY when off. */
  telemetry?: Telemetry;
}
