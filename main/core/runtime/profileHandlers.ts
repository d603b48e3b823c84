// The APIs screen's profile methods: list, save, remove, inspect a document,
// the active profile's operations and their policies (a policy change is a
// rule change: the Rules and APIs screens in every window re-read).
import type { Services } from './services.ts';
import type { ControlHandlers } from '../control/dispatch.ts';
import { AirlockError } from '../util/errors.ts';
import { buildCatalogue, type ApiOperation } from '../openapi/catalogue.ts';
import { isUrl, loadApiDocument } from '../openapi/loadDocument.ts';
import { checkAllowEntry } from '../openapi/externalRefs.ts';
import { isAbsolute } from 'node:path';
import { formatAuthScheme, inferAuthScheme, parseAuthScheme } from '../config/auth.ts';
import { PROFILE_NAME, ProfileStore } from '../profiles/profileStore.ts';
import { profileToFile, type MutationPolicy, type Profile } from '../profiles/profile.ts';
import { PRESETS } from '../profiles/presets.ts';
import { existsSync } from 'node:fs';

export type ProfileHandlerServices = Pick<Services, 'info' | 'api' | 'gate' | 'logs' | 'hub'>;

export function createProfileHandlers(
  c: ProfileHandlerServices,
): Pick<ControlHandlers, 'profiles.list' | 'profiles.save' | 'profiles.remove' | 'profiles.operations' | 'profiles.inspect' | 'profiles.setOperationPolicy'> {
  const profiles = new ProfileStore(c.info.paths.profiles);
  const activeProfile = c.api.profile.name;
  const operationView = (op: ApiOperation) => {
    const own = c.api.profile.operationPolicies?.[op.id];
    const mutation = c.gate.isMutation(op);
    return {
      operationId: op.id,
      call: op.call,
      method: op.method,
      path: op.path,
      ...(op.summary ? { summary: op.summary } : {}),
      mutation,
      deprecated: op.deprecated,
      policy: own ?? (mutation ? c.api.profile.policy : 'allow'),
      policySource: own ? ('operation' as const) : mutation ? ('profile' as const) : ('read' as const),
    };
  };
  const log = c.logs.logger;
  const profileView = (p: Profile, error?: string) => ({
    name: p.name,
    ...profileToFile(p),
    operationPolicies: p.operationPolicies ?? {},
    origin: p.origin,
    active: p.name === activeProfile,
    ...(error ? { error } : {}),
  });

  /** What already has this name: a saved profile, a built-in one, or the running (ad hoc) one. */
  const takenBy = (name: string): 'saved' | 'built-in' | 'running' | undefined => {
    if (!PROFILE_NAME.test(name)) return undefined;
    if (existsSync(profiles.fileOf(name))) return 'saved';
    if (PRESETS[name]) return 'built-in';
    return name === activeProfile ? 'running' : undefined;
  };

  return {
    'profiles.list': () => {
      const listed = profiles
        .list()
        .map((l) =>
          l.profile
            ? profileView(l.profile)
            : profileView({ name: l.name, spec: '', policy: 'ask', readOnly: false, allowPrivateNetwork: false, mutations: [], origin: 'file' }, l.error),
        );
      // The active profile is always listed, also when it came from the command line (--spec) and has no file.
      const active = c.api.profile;
      return listed.some((p) => p.name === active.name) ? listed : [profileView(active), ...listed];
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
      const file = await profiles.save({
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
        origin: 'file',
      });
      if (taken) log.info(`profile ${input.name} replaced (${taken}) by ${caller.by}`);
      return { file, restartRequired: input.name === activeProfile };
    },

    'profiles.remove': ({ name }) => ({ removed: profiles.remove(name) }),

    'profiles.operations': ({ name, query }) => {
      if (name && name !== activeProfile) throw new AirlockError('usage', `profile '${name}' is not the active one; its operations are listed once it is`);
      const needle = query?.trim().toLowerCase();
      return c.api.catalogue.operations
        .filter((op) => !needle || `${op.id} ${op.call} ${op.method} ${op.path} ${op.summary ?? ''}`.toLowerCase().includes(needle))
        .map(operationView);
    },

    'profiles.inspect': async ({ spec, allowExternalRefs }) => {
      for (const entry of allowExternalRefs ?? []) {
        const problem = checkAllowEntry(entry);
        if (problem) throw new AirlockError('usage', `allowExternalRefs: ${JSON.stringify(entry)} ${problem}`);
      }
      if (!isUrl(spec) && !isAbsolute(spec)) throw new AirlockError('usage', `"${spec}" is neither an http(s) URL nor an absolute file path`);
      const loaded = await loadApiDocument(spec, {
        cacheDir: c.info.paths.specCache,
        refresh: true,
        logger: log.child('spec'),
        ...(allowExternalRefs ? { allowExternalRefs } : {}),
      });
      const catalogue = buildCatalogue(loaded.document, loaded.refNames);
      return {
        title: catalogue.title,
        version: catalogue.version,
        operations: catalogue.operations.length,
        mutations: catalogue.operations.filter((op) => op.mutation).length,
        servers: catalogue.servers,
        auth: formatAuthScheme(inferAuthScheme(catalogue.securitySchemes, loaded.document.security)),
        warnings: catalogue.warnings,
        fromCache: loaded.origin.fromCache === true,
        loadMs: Math.round(loaded.loadMs),
      };
    },

    'profiles.setOperationPolicy': async ({ operationId, policy }, caller) => {
      const op = c.api.catalogue.operations.find((o) => o.id === operationId);
      if (!op) throw new AirlockError('not_found', `no operation '${operationId}' in ${c.api.catalogue.title}`, { hint: 'see profiles.operations' });
      const profile = c.api.profile;
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
      return { operation: operationView(op), saved };
    },
  };
}
