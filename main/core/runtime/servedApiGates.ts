// The APIs a companion serves, wired: which profiles it starts with (the one
// the command named, else every enabled one), each opened with its document
// prepared, its key and the gate its calls go through, and how the start
// waits for them (the named one before the companion answers; the others in
// the background, each with its progress in the log and on the Overview).
import type { Settings } from '../config/settings.ts';
import type { dataPaths } from '../config/dataDir.ts';
import type { Logger } from '../log/logger.ts';
import type { RedactionHolder } from '../log/redactionHolder.ts';
import type { SecretStore } from '../secrets/secretStore.ts';
import { createCredentials } from '../secrets/credentials.ts';
import type { AuditStore } from '../audit/auditStore.ts';
import type { ApprovalBroker } from '../approvals/approvalBroker.ts';
import { createEgressGate } from '../egress/egressGate.ts';
import type { RateLimiter } from '../execute/caps.ts';
import type { EventHub } from '../control/eventHub.ts';
import type { Preparation } from '../search/preparation.ts';
import type { PrepareProgress } from '../search/preparedApi.ts';
import { ProfileStore, selectProfile } from '../profiles/profileStore.ts';
import { isEnabled, type Profile } from '../profiles/profile.ts';
import { AirlockError } from '../util/errors.ts';
import { loadApi } from './loadApi.ts';
import { apiRefusal, type ManagedPolicy } from '../config/managedPolicy.ts';
import type { PolicyRecorder } from './policyAudit.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import { ServedApis } from './servedApis.ts';

export interface ServedApiDeps {
  values: Readonly<Settings>;
  paths: ReturnType<typeof dataPaths>;
  /** The environment: every API reads its own AIRLOCK_KEY_<API> from it; only the API the command named reads AIRLOCK_API_KEY. */
  env: Record<string, string | undefined>;
  store: SecretStore;
  redaction: RedactionHolder;
  broker: ApprovalBroker;
  audit: AuditStore;
  rate: RateLimiter;
  preparation: Preparation;
  hub: EventHub;
  logger: Logger;
  /** The organisation's managed policy as it is now: which APIs may be served. */
  policy?(): ManagedPolicy | undefined;
  /** Where what the policy refused is audited. */
  policyEvents?: Pick<PolicyRecorder, 'once'>;
  /** Where each call's span and counts go (telemetry on). */
  telemetry?: Telemetry;
}

/** The served APIs, each opened with its catalogue and search, its key and its gate. */
export function openServedApis(d: ServedApiDeps): ServedApis {
  const { values, logger } = d;
  const refused = (name: string, why: string) => {
    d.policyEvents?.once({ action: `serve API ${name}`, by: 'airlock', why });
    return new AirlockError('denied', why);
  };
  return new ServedApis({
    open: async (profile, { primary, signal, onProgress, onDamaged }) => {
      // The organisation's policy first by name, then by the origin the document (or the profile) names.
      const byName = apiRefusal(d.policy?.(), { profile: profile.name, ...(profile.baseUrl ? { baseUrl: profile.baseUrl } : {}) });
      if (byName) throw refused(profile.name, byName);
      const served = await loadApi({
        profile,
        refreshSpec: values.refreshSpec,
        paths: d.paths,
        logger,
        preparation: d.preparation,
        maxBytes: values.specMaxMb * 1024 * 1024,
        signal,
        onProgress: progressLog(logger, profile.name, onProgress),
        onDamaged,
      });
      try {
        const { api } = served;
        const byOrigin = apiRefusal(d.policy?.(), { profile: profile.name, baseUrl: api.baseUrl });
        if (byOrigin) throw refused(profile.name, byOrigin);
        const credentials = await createCredentials({
          store: d.store,
          profile: api.profile.name,
          auth: api.auth,
          env: d.env,
          primary,
          logger,
          onSecret: (s) => d.redaction.add(s),
        });
        const gate = createEgressGate({
          api,
          getCredential: () => credentials.get(),
          redactor: () => d.redaction.redactor,
          credentialSource: () => credentials.state.source,
          approvals: d.broker,
          rateLimit: (key) => d.rate.take(key),
          // The kill switch also stops every run; here it stops a call already on its way (one a person is deciding).
          killSwitch: () => values.killSwitch,
          askFloor: () => d.policy?.()?.approvals.ask,
          ...(d.telemetry ? { telemetry: d.telemetry } : {}),
          onApiCall: (record) => d.audit.recordApiCall(record),
          logger: logger.child('gate'),
        });
        return { api, credentials, gate, close: () => served.close() };
      } catch (error) {
        await served.close();
        throw error;
      }
    },
    logger: logger.child('apis'),
    onChange: () => d.hub.publish({ type: 'apis-changed' }),
    onProgress: (name, progress) => d.hub.publish({ type: 'api-progress', name, progress }),
  });
}

/**
 * Starts serving: the API the command named (--profile, --spec) is served before the companion answers, and its
 * failure stops the start, as always; every enabled API otherwise loads in the background — the companion answers
 * at once, and a call to one still loading waits for it (and is told if it failed).
 */
export async function startServing(apis: ServedApis, values: Readonly<Settings>, paths: ReturnType<typeof dataPaths>, logger: Logger): Promise<void> {
  const serving = profilesToServe(values, new ProfileStore(paths.profiles), logger);
  const loading = apis.start(serving.profiles, serving.primary);
  if (serving.primary) {
    await loading;
    await refuseWhenNoneLoaded(apis);
    logger.info(`APIs loaded: ${describeServed(apis)}`);
  } else {
    void loading.then(() => logger.info(`APIs loaded: ${describeServed(apis)}`));
  }
}

/**
 * The profiles a companion starts serving: the one the command names (--profile, --spec, or the settings' profile),
 * alone, as before many APIs were served at once; else every enabled profile. A profile file that cannot be
 * read is said in the log and left out.
 */
function profilesToServe(values: Readonly<Settings>, store: ProfileStore, logger: Logger): { profiles: Profile[]; primary?: Profile } {
  if (values.profile !== undefined || values.spec !== undefined) {
    const profile = selectProfile(values, store);
    return { profiles: [profile], primary: profile };
  }
  const profiles: Profile[] = [];
  for (const listed of store.list()) {
    if (!listed.profile) logger.error(`profile ${listed.name} left out: ${listed.error}`);
    else if (isEnabled(listed.profile)) profiles.push(listed.profile);
  }
  if (profiles.length === 0) logger.warn('no API is enabled: enable one with `airlock apis enable <name>` or on the APIs screen');
  return { profiles };
}

/** A companion whose every API failed to load says why, as one serving a single API always did. */
async function refuseWhenNoneLoaded(apis: ServedApis): Promise<void> {
  const all = apis.list();
  if (all.length === 0 || all.some((a) => a.state === 'ready')) return;
  if (all.length === 1) await all[0]!.ready();
  throw new AirlockError('config', `no API could be loaded: ${all.map((a) => `${a.name}: ${a.error}`).join('; ')}`);
}

/** The APIs served, for the start-up line: each with its mutation policy. */
export function describeServed(apis: ServedApis): string {
  const list = apis.list();
  if (list.length === 0) return 'none';
  return list
    .map((a) => `${a.name} (${a.state === 'ready' ? `mutations: ${a.profile.readOnly ? 'read-only profile' : a.profile.policy}` : a.state})`)
    .join(', ');
}

/** Passes progress on, and says each new phase of a preparation in the log. */
function progressLog(logger: Logger, name: string, onProgress: (p: PrepareProgress) => void): (p: PrepareProgress) => void {
  let phase = '';
  return (p) => {
    onProgress(p);
    if (p.phase === phase) return;
    phase = p.phase;
    logger.info(`API ${name}: ${p.phase}, ${p.percent}%${p.operations !== undefined ? ` (${p.operations.toLocaleString('en-US')} operations)` : ''}`);
  };
}
