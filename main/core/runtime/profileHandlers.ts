// The APIs screen's profile methods: list, save (a saved profile is served
// at once, no restart), remove (no longer served), inspect a document, a
// served API's operations and their policies (a policy change is a rule
// change: the Rules and APIs screens in every window re-read).
import type { Services } from './services.ts';
import type { ControlHandlers } from '../control/dispatch.ts';
import { BY_ORGANISATION, refusedByOrganisation } from '../config/managedPolicy.ts';
import { AirlockError } from '../util/errors.ts';
import type { ApiOperation } from '../openapi/catalogue.ts';
import { parseAuthScheme } from '../config/auth.ts';
import { PROFILE_NAME, ProfileStore } from '../profiles/profileStore.ts';
import { profileToFile, unreadableProfile, type MutationPolicy, type Profile } from '../profiles/profile.ts';
import { PRESETS } from '../profiles/presets.ts';
import { existsSync } from 'node:fs';
import type { OpenedApi } from './servedApis.ts';
import { inspectDocument } from './inspectDocument.ts';

/** The profile as its file now reads (a relative spec resolved, defaults applied), keeping what only memory holds. */
function readBack(store: ProfileStore, saved: Profile): Profile {
  try {
    return store.get(saved.name);
  } catch {
    return saved;
  }
}

export type ProfileHandlerServices = Pick<Services, 'info' | 'apis' | 'logs' | 'hub' | 'preparation' | 'settings'>;

export function createProfileHandlers(
  c: ProfileHandlerServices,
): Pick<ControlHandlers, 'profiles.list' | 'profiles.save' | 'profiles.remove' | 'profiles.operations' | 'profiles.inspect' | 'profiles.setOperationPolicy'> {
  const profiles = new ProfileStore(c.info.paths.profiles);
  /** A served API by profile name (none given: the primary one); its operations are listed once it is loaded. */
  const servedApi = (name: string | undefined): OpenedApi => {
    if (name === undefined) return c.apis.primary();
    const served = c.apis.get(name);
    if (!served)
      throw new AirlockError('usage', `API '${name}' is not served; its operations are listed once it is`, {
        hint: `enable it: \`airlock apis enable ${name}\``,
      });
    if (!served.opened)
      throw new AirlockError('unavailable', `API '${name}' is ${served.state === 'failed' ? `not loaded: ${served.error}` : 'still loading'}`);
    return served.opened;
  };
  const operationView = (served: OpenedApi, op: ApiOperation) => {
    const own = served.api.profile.operationPolicies?.[op.id];
    const mutation = served.gate.isMutation(op);
    return {
      operationId: op.id,
      call: op.call,
      method: op.method,
      path: op.path,
      ...(op.summary ? { summary: op.summary } : {}),
      mutation,
      deprecated: op.deprecated,
      policy: own ?? (mutation ? served.api.profile.policy : 'allow'),
      policySource: own ? ('operation' as const) : mutation ? ('profile' as const) : ('read' as const),
    };
  };
  const log = c.logs.logger;
  const profileView = (p: Profile, error?: string) => ({
    name: p.name,
    ...profileToFile(p),
    operationPolicies: p.operationPolicies ?? {},
    origin: p.origin,
    active: c.apis.get(p.name)?.state === 'ready',
    ...(error ? { error } : {}),
  });

  /** What already has this name: a saved profile, a built-in one, or the running (ad hoc) one. */
  const takenBy = (name: string): 'saved' | 'built-in' | 'running' | undefined => {
    if (!PROFILE_NAME.test(name)) return undefined;
    if (existsSync(profiles.fileOf(name))) return 'saved';
    if (PRESETS[name]) return 'built-in';
    return c.apis.get(name)?.profile.origin === 'adhoc' ? 'running' : undefined;
  };

  return {
    'profiles.list': () => {
      const listed = profiles.list().map((l) => (l.profile ? profileView(l.profile) : profileView(unreadableProfile(l.name), l.error)));
      // A served profile is always listed, also when it came from the command line (--spec) and has no file.
      const adhoc = c.apis.list().filter((a) => !listed.some((p) => p.name === a.name));
      return [...adhoc.map((a) => profileView(a.profile)), ...listed];
    },

    'profiles.save': async (input, caller) => {
      // Never overwrite silently: a name that is taken (a saved profile, a built-in one, the running one) needs `replace`.
      const taken = takenBy(input.name);
      if (taken && !input.replace)
        throw new AirlockError('conflict', `a ${taken} profile is already named '${input.name}'`, {
          hint: `choose another name, or confirm that it replaces the existing one${taken === 'built-in' ? ' (the built-in one stays, hidden behind yours)' : ''}`,
        });
      const auth = input.auth === undefined ? undefined : parseAuthScheme(input.auth);
      if (typeof auth === 'string') throw new AirlockError('usage', `auth: ${auth}`);
      const saved: Profile = {
        name: input.name,
        spec: input.spec,
        ...(input.description ? { description: input.description } : {}),
        ...(input.baseUrl ? { baseUrl: input.baseUrl } : {}),
        ...(auth ? { auth } : {}),
        ...(input.alias ? { alias: input.alias } : {}),
        policy: input.policy ?? 'ask',
        readOnly: input.readOnly ?? false,
        allowPrivateNetwork: input.allowPrivateNetwork ?? false,
        mutations: input.mutations ?? [],
        ...(input.operationPolicies ? { operationPolicies: input.operationPolicies } : {}),
        ...(input.allowExternalRefs ? { allowExternalRefs: input.allowExternalRefs } : {}),
        enabled: input.enabled !== false,
        origin: 'file',
      };
      const file = await profiles.save(saved);
      if (taken) log.info(`profile ${input.name} replaced (${taken}) by ${caller.by}`);
      if (input.enabled === false) {
        if (c.apis.disable(input.name)) log.info(`API ${input.name} saved disabled by ${caller.by}: no longer served`);
        return { file, restartRequired: false };
      }
      // Served at once, as saved: a new API is searched and called at the next call of every client in reach of it.
      const served = await c.apis.enable({ ...readBack(profiles, saved), origin: 'file' });
      if (served.state === 'failed' && served.error?.includes(BY_ORGANISATION)) {
        // Refused by the organisation's policy: a new API is not added; one it replaced is saved as asked, and not served.
        c.apis.disable(input.name);
        if (!taken) profiles.remove(input.name);
        log.warn(`API ${input.name} refused (${served.error}), asked by ${caller.by}`);
        throw refusedByOrganisation(`${input.name}: ${served.error}; nothing was saved`);
      }
      log.info(
        `API ${input.name} ${taken ? 'served again as saved' : 'added'} by ${caller.by}: ${served.state === 'failed' ? `it could not be loaded: ${served.error}` : 'served'}`,
      );
      return { file, restartRequired: false };
    },

    'profiles.remove': ({ name }, caller) => {
      const removed = profiles.remove(name);
      // A removed profile is no longer served (a built-in one with the same name is served again only once enabled).
      if (removed && c.apis.disable(name)) log.info(`API ${name} removed by ${caller.by}: new calls to it are refused`);
      return { removed };
    },

    'profiles.operations': ({ name, query }) => {
      const served = servedApi(name);
      const needle = query?.trim().toLowerCase();
      return served.api.catalogue.operations
        .filter((op) => !needle || `${op.id} ${op.call} ${op.method} ${op.path} ${op.summary ?? ''}`.toLowerCase().includes(needle))
        .map((op) => operationView(served, op));
    },

    'profiles.inspect': ({ spec, allowExternalRefs }) =>
      inspectDocument(spec, {
        cacheDir: c.info.paths.specCache,
        prepare: (request) => c.preparation.prepare(request),
        maxBytes: c.settings.values.specMaxMb * 1024 * 1024,
        onProgress: (progress) => c.hub.publish({ type: 'inspect-progress', spec, progress }),
        ...(allowExternalRefs ? { allowExternalRefs } : {}),
      }),

    'profiles.setOperationPolicy': async ({ operationId, policy, profile: name }, caller) => {
      const served = servedApi(name);
      const op = served.api.catalogue.operations.find((o) => o.id === operationId);
      if (!op) throw new AirlockError('not_found', `no operation '${operationId}' in ${served.api.catalogue.title}`, { hint: 'see profiles.operations' });
      const profile = served.api.profile;
      const change = (policies: Record<string, MutationPolicy>) => {
        if (policy === null) delete policies[operationId];
        else policies[operationId] = policy;
        return policies;
      };
      // Saved first, then put in effect in the map the gate reads: a policy that could not be saved never applies.
      // An ad hoc profile (--spec) has no file: the policy lasts until the companion stops.
      const saved = profile.origin !== 'adhoc';
      if (saved) await profiles.save({ ...profile, operationPolicies: change({ ...profile.operationPolicies }) });
      change((profile.operationPolicies ??= {}));
      log.info(
        `operation ${operationId}: policy ${policy ?? `the profile's (${profile.policy})`} (${caller.by})${saved ? '' : ', not saved (ad hoc profile)'}`,
      );
      c.hub.publish({ type: 'rules-changed' });
      return { operation: operationView(served, op), saved };
    },
  };
}
