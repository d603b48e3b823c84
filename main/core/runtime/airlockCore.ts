// The composition root of the headless core: from resolved settings it picks
// the profile, starts the built-in demo API when that profile needs it,
// loads the OpenAPI document, builds the catalogue and the search index.
// `airlock serve`, `airlock stdio` and the Electron main process all run this
// same core; transports and UIs sit on top of it.
import { AirlockError } from '../errors.ts';
import { dataPaths, ensureDataDir, type DataPaths } from '../config/dataDir.ts';
import type { Settings } from '../config/settings.ts';
import { type AuthScheme, inferAuthScheme, unsupportedSecurity } from '../config/auth.ts';
import type { Logger } from '../log/logger.ts';
import type { LogBuffer } from '../log/logBuffer.ts';
import { ProfileStore, selectProfile } from '../profiles/profileStore.ts';
import { DEMO_SPEC, type Profile } from '../profiles/profile.ts';
import { type SpecOrigin, isUrl } from '../openapi/loadDocument.ts';
import type { Catalogue } from '../openapi/catalogue.ts';
import type { OperationSearch } from '../search/operationSearch.ts';
import { prepareApi } from '../openapi/preparedApi.ts';
import { startDemoServer, demoSpecPath, type DemoServer } from '../demo/demoServer.ts';
import { AIRLOCK_VERSION } from './version.ts';

export interface LoadedApi {
  profile: Profile;
  baseUrl: string;
  auth: AuthScheme;
  catalogue: Catalogue;
  search: OperationSearch;
  origin: SpecOrigin;
  /** Load + index time of the document, in ms. */
  readyMs: number;
  /** Whether the catalogue and index came from the on-disk cache. */
  cache: 'hit' | 'miss' | 'off';
}

export interface AirlockCore {
  readonly version: string;
  readonly settings: Settings;
  readonly paths: DataPaths;
  readonly api: LoadedApi;
  readonly logger: Logger;
  readonly logBuffer: LogBuffer;
  readonly startedAt: Date;
  readonly demo: DemoServer | undefined;
  /** Names the sandbox client is bound to: `api`, plus the profile's alias. */
  readonly clientNames: string[];
  close(): Promise<void>;
}

export interface CoreOptions {
  settings: Settings;
  logger: Logger;
  logBuffer: LogBuffer;
  fetch?: typeof fetch;
}

export async function createCore(options: CoreOptions): Promise<AirlockCore> {
  const { settings, logger } = options;
  const paths = dataPaths(settings.dataDir);
  ensureDataDir(paths.root);
  const profile = selectProfile(settings, new ProfileStore(paths.profiles));

  let demo: DemoServer | undefined;
  let spec = profile.spec;
  let baseUrl = profile.baseUrl;
  if (spec === DEMO_SPEC) {
    demo = await startDemoServer({ dataDir: paths.demo, logger: logger.child('demo') });
    spec = demoSpecPath();
    baseUrl ??= demo.url;
    logger.info(`demo API serving on ${demo.url}`);
  }
  try {
    const prepared = await prepareApi(spec, {
      cacheDir: paths.specCache,
      refresh: settings.refreshSpec,
      logger: logger.child('spec'),
      ...(profile.allowExternalRefs ? { allowExternalRefs: profile.allowExternalRefs } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const { catalogue, search, readyMs } = prepared;
    if (catalogue.operations.length === 0) logger.warn(`${prepared.origin.location} declares no operations`);
    for (const warning of catalogue.warnings) logger.warn(`${prepared.origin.location}: ${warning}`);
    baseUrl ??= resolveServerUrl(catalogue.servers[0], spec);
    if (!baseUrl) {
      throw new AirlockError('config', `no base URL for profile '${profile.name}': ${prepared.origin.location} declares no absolute server URL`, {
        hint: 'pass --base-url',
      });
    }
    if (!profile.auth) {
      const problem = unsupportedSecurity(catalogue.securitySchemes, prepared.security);
      if (problem) {
        throw new AirlockError('config', `profile '${profile.name}': ${problem}`, {
          hint: `if the API also takes one of those, set it with --auth (or the profile's auth); --auth none calls it without a credential`,
        });
      }
    }
    const auth = profile.auth ?? inferAuthScheme(catalogue.securitySchemes, prepared.security);
    logger.info(
      `profile ${profile.name}: ${catalogue.title} ${catalogue.version}, ${catalogue.operations.length} operations, ${baseUrl} (${prepared.cache === 'hit' ? 'restored from the cache' : 'loaded'} in ${readyMs.toFixed(0)} ms)`,
    );
    const api: LoadedApi = { profile, baseUrl: baseUrl.replace(/\/$/, ''), auth, catalogue, search, origin: prepared.origin, readyMs, cache: prepared.cache };
    return {
      version: AIRLOCK_VERSION,
      settings,
      paths,
      api,
      logger,
      logBuffer: options.logBuffer,
      startedAt: new Date(),
      demo,
      clientNames: ['api', ...(profile.alias ? [profile.alias] : [])],
      async close() {
        await demo?.close();
      },
    };
  } catch (error) {
    await demo?.close();
    throw error;
  }
}

/** A server URL as the document gives it, made absolute against a URL document's own address. */
function resolveServerUrl(server: string | undefined, spec: string): string | undefined {
  if (!server) return undefined;
  if (/^https?:\/\//i.test(server)) return server;
  if (isUrl(spec)) return new URL(server, spec).toString();
  return undefined;
}
