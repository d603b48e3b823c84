// What a gate is given (its options) and what every call through it shares,
// set up once from them: the profile's origin and base path, where the key
// goes, the profile as the classifier reads it, the address pins, the
// transport, the decision context and where records go.
import type { Catalogue } from '../openapi/catalogue.ts';
import type { AuthScheme } from '../config/auth.ts';
import type { Profile } from '../profiles/profile.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import type { Redactor } from '../log/redactor.ts';
import type { ApiCallRecord } from '../audit/types.ts';
import type { ApprovalHook } from '../approvals/types.ts';
import type { ClassifyInput } from './classify.ts';
import { addressPins, type PinnedAddress, type Resolver } from '../util/addressPolicy.ts';
import { nodeTransport, type Transport } from './upstream.ts';
import { credentialPlacement, type CredentialPlacement } from './credentialPlacement.ts';
import type { DecisionContext } from './gateDecision.ts';
import type { RecordSink } from '../gate/callRecords.ts';
import type { PathOptions } from '../gate/decisionPath.ts';
import type { AskFloor } from '../config/managedPolicy.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';

export interface GateApi {
  profile: Profile;
  baseUrl: string;
  auth: AuthScheme;
  catalogue: Catalogue;
}

export interface EgressGateOptions {
  api: GateApi;
  /** The API key, read at each call (it may change); undefined when none is configured. */
  getCredential(): string | undefined | Promise<string | undefined>;
  /** The process-wide redactor (every known secret), so the gate, logs and audit scrub alike; it must know each key getCredential returns. */
  redactor(): Redactor;
  /** Where the key comes from, as the approval dialog names it (`keychain: demo`). */
  credentialSource?(): string;
  approvals?: ApprovalHook;
  resolver?: Resolver;
  transport?: Transport;
  /** Per-caller rate limit, shared with the client's tool calls: false means over the limit. */
  rateLimit?(callerKey: string): boolean;
  /** The kill switch: while on, no call goes out. */
  killSwitch?(): boolean;
  /** The organisation's floor on asking, as it is now (decisionPath.ts). */
  askFloor?(): AskFloor | undefined;
  /** Where each call's span and counts go (telemetry on). */
  telemetry?: Telemetry;
  /** Records the call (the audit store); the result goes back only once it settles, and not at all if it throws. */
  onApiCall?(record: ApiCallRecord): void | Promise<unknown>;
  logger?: Logger;
  responseBytes?: number;
  timeoutMs?: number;
  now?: () => Date;
}

/** What every call through one gate shares. */
export interface GateContext {
  options: EgressGateOptions;
  api: GateApi;
  log: Logger;
  transport: Transport;
  now(): Date;
  origin: URL;
  /** The base URL's path, without a trailing slash (`/v1`). */
  basePath: string;
  placement: CredentialPlacement;
  /** The profile as the classifier reads it. */
  policyProfile: ClassifyInput['profile'];
  pin(hostname: string): Promise<PinnedAddress>;
  decision: DecisionContext;
  /** What the decision path needs: who answers, the client's rate, the kill switch. */
  path: PathOptions;
  records: RecordSink;
  /** The largest response handed back, in bytes. */
  maxBytes: number;
  timeoutMs: number;
}

export function gateContext(options: EgressGateOptions): GateContext {
  const { api } = options;
  const log = options.logger ?? silentLogger;
  const origin = new URL(api.baseUrl);
  const placement = credentialPlacement(api.auth);
  // The profile's own record, so a policy set while the companion runs (profiles.setOperationPolicy) applies to the next call.
  const operationPolicies = (api.profile.operationPolicies ??= {});
  const policyProfile = {
    name: api.profile.name,
    policy: api.profile.policy,
    readOnly: api.profile.readOnly,
    mutations: api.profile.mutations,
    operationPolicies,
  };
  return {
    options,
    api,
    log,
    transport: options.transport ?? nodeTransport,
    now: options.now ?? (() => new Date()),
    origin,
    basePath: origin.pathname.replace(/\/+$/, ''),
    placement,
    policyProfile,
    pin: addressPins({ allowPrivateNetwork: () => api.profile.allowPrivateNetwork, ...(options.resolver ? { resolver: options.resolver } : {}) }),
    decision: {
      profile: policyProfile,
      placement,
      origin,
      approvals: options.approvals,
      credentialSource: () => options.credentialSource?.() ?? 'keychain',
    },
    path: {
      approvals: options.approvals,
      rateLimit: options.rateLimit,
      killSwitch: options.killSwitch,
      askFloor: options.askFloor,
      telemetry: options.telemetry,
    },
    records: { profile: api.profile.name, log, onApiCall: (record) => options.onApiCall?.(record) },
    maxBytes: options.responseBytes ?? 10 * 1024 * 1024,
    timeoutMs: options.timeoutMs ?? 30_000,
  };
}
