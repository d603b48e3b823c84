// The APIs screen's and `airlock apis`' methods: every profile with whether
// it is served and how (loading, ready, failed), when it was last called,
// and turning one on or off while the companion runs. The choice is saved in
// the profile, so the next start serves the same APIs.
import type { ControlHandlers } from '../control/dispatch.ts';
import { AirlockError } from '../util/errors.ts';
import { ProfileStore } from '../profiles/profileStore.ts';
import { isEnabled, unreadableProfile, type Profile } from '../profiles/profile.ts';
import { apiIdentifier } from '../profiles/apiIdentifier.ts';
import { formatAuthScheme } from '../config/auth.ts';
import type { ApiView } from '../../../contract/apis.ts';
import { apiKeyEnv } from '../secrets/resolveCredential.ts';
import type { Services } from './services.ts';

export type ApiHandlerServices = Pick<Services, 'info' | 'apis' | 'logs' | 'audit'>;

export function createApiHandlers(c: ApiHandlerServices): Pick<ControlHandlers, 'apis.list' | 'apis.enable' | 'apis.disable'> {
  const store = new ProfileStore(c.info.paths.profiles);
  const log = c.logs.logger;

  const view = (profile: Profile, error?: string): ApiView => {
    const served = c.apis.get(profile.name);
    const loaded = served?.opened?.api;
    const lastUsed = c.audit.lastUsed(profile.name);
    return {
      name: profile.name,
      id: served?.id ?? apiIdentifier(profile.name),
      enabled: served ? true : isEnabled(profile) && !error,
      state: served ? served.state : 'disabled',
      ...(loaded ? { title: loaded.catalogue.title, operations: loaded.catalogue.operations.length } : {}),
      ...((served?.error ?? error) ? { error: served?.error ?? error } : {}),
      ...(served?.progress ? { progress: served.progress } : {}),
      spec: profile.spec,
      ...(profile.baseUrl ? { baseUrl: profile.baseUrl } : loaded ? { baseUrl: loaded.baseUrl } : {}),
      ...(profile.auth ? { auth: formatAuthScheme(profile.auth) } : loaded ? { auth: formatAuthScheme(loaded.auth) } : {}),
      ...(profile.alias ? { alias: profile.alias } : {}),
      origin: profile.origin,
      keyEnv: apiKeyEnv(profile.name),
      ...(served?.opened ? { credential: served.opened.credentials.state } : {}),
      ...(lastUsed ? { lastUsed: lastUsed.toISOString() } : {}),
    };
  };

  /** The profile by name: a saved or built-in one, or one served from the command line (--spec). */
  const profileOf = (name: string): Profile => {
    const served = c.apis.get(name);
    if (served && served.profile.origin === 'adhoc') return served.profile;
    return store.get(name);
  };

  const save = async (profile: Profile, enabled: boolean) => {
    if (profile.origin === 'adhoc') return; // --spec: nothing to save; it lasts as long as this companion.
    await store.save({ ...profile, enabled });
  };

  return {
    'apis.list': () => {
      const views = store.list().map((l) => (l.profile ? view(l.profile) : view(unreadableProfile(l.name), l.error)));
      // An API served from the command line (--spec) has no file: it is listed too.
      for (const served of c.apis.list()) if (!views.some((v) => v.name === served.name)) views.push(view(served.profile));
      return views.sort((a, b) => a.name.localeCompare(b.name));
    },

    'apis.enable': async ({ name }, caller) => {
      const profile = { ...profileOf(name), enabled: true };
      await save(profile, true);
      const served = await c.apis.enable(profile);
      log.info(`API ${name} enabled by ${caller.by}: ${served.state === 'failed' ? `it could not be loaded: ${served.error}` : 'served'}`);
      return view(profile);
    },

    'apis.disable': async ({ name }, caller) => {
      const profile = profileOf(name);
      if (!c.apis.get(name) && !isEnabled(profile)) return view(profile);
      await save(profile, false);
      const was = c.apis.disable(name);
      if (!was && profile.origin === 'adhoc') throw new AirlockError('not_found', `API '${name}' is not served`);
      log.info(`API ${name} disabled by ${caller.by}: new calls to it are refused`);
      return view({ ...profile, enabled: false });
    },
  };
}
