// What the control handlers read from the companion: its parts, not the
// composition (so controlHandlers.ts and companion.ts do not import each other).
import type { EgressMode, ResolvedSettings, Settings } from '../config/settings.ts';
import type { EngineName } from '../sandbox/engine.ts';
import type { SecretStore } from '../secrets/secretStore.ts';
import type { AuditStore } from '../audit/auditStore.ts';
import type { EgressGate } from '../egress/egressGate.ts';
import type { ViewSource } from './companionViews.ts';
import type { ControlEvent } from '../../../contract/events.ts';

export interface HandlerDeps extends ViewSource {
  /** Set when the web UI is served. */
  ui?: { loginLink(): { url: string; expiresAt: string } };
  rotateMcpToken?: () => { file: string; endedSessions: number };
  resolved: ResolvedSettings;
  settings: Settings;
  secrets: SecretStore;
  audit: AuditStore;
  /** Where events for the screens go (set by the companion). */
  hub?: { publish(event: ControlEvent): void };
  gate: EgressGate;
  /** Puts live settings already written into `settings` into effect (caps, rate limit). */
  applyLive?(keys: string[]): void;
  /** Switches the running companion's engine × egress (the next run uses it). */
  switchEngine?(choice: { engine: EngineName; egress: EgressMode; acknowledgeUnrestricted?: boolean }): Promise<void>;
}
