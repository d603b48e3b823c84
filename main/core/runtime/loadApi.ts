// One API a companion serves, from its profile: starts the built-in demo API
// when the profile needs it, and opens the document's prepared store (made
// first, in a worker, when none fits: search/preparation.ts): the catalogue,
// the search index and the sandbox client's shape. The served APIs
// (servedApis.ts) load each enabled profile this way.
import { AirlockError } from '../util/errors.ts';
import type { DataPaths } from '../config/dataDir.ts';
import { type AuthScheme, inferAuthScheme, unsupportedSecurity } from '../config/auth.ts';
import type { Logger } from '../log/logger.ts';
import { DEMO_SPEC, type Profile } from '../profiles/profile.ts';
import { type SpecOrigin, isUrl } from '../openapi/loadDocument.ts';
import type { Catalogue } from '../openapi/catalogue.ts';
import type { OperationSearch } from '../search/operationSearch.ts';
import type { PrepareProgress } from '../search/preparedApi.ts';
import type { Preparation } from '../search/preparation.ts';
import type { ClientShape } from '../sandbox/engine.ts';
import { apiIdentifier, clientNamesOf } from '../profiles/apiIdentifier.ts';
import type { DemoServer } from '../demo/demoServer.ts';

export interface LoadedApi {
  profile: Profile;
  /** The name `execute` reaches it by (`github.repos.get`): the profile's name as an identifier. */
  id: string;
  baseUrl: string;
  auth: AuthScheme;
  catalogue: Catalogue;
  search: OperationSearch;
  origin: SpecOrigin;
  /** Load + index time of the document, in ms. */
  readyMs: number;
  /** Whether the catalogue and index came from the on-disk cache. */
  cache: 'hit' | 'miss' | 'off';
  /** Names the sandbox client is bound to when a run reaches this API alone: `api`, its name, its alias. */
  clientNames: string[];
  /** The sandbox client's tree (a run that touches the API builds its client from it). */
  shape: ClientShape;
}

export interface ApiLoadOptions {
  profile: Profile;
  /** Load the document again even when the cache holds it (`--refresh-spec`). */
  refreshSpec?: boolean;
  paths: DataPaths;
  logger: Logger;
  /** Prepares the document (in a worker) or opens its prepared store. */
  preparation: Preparation;
  /** The cap on a document's size, in bytes. */
  maxBytes?: number;
  /** How far preparing is. */
  onProgress?(progress: PrepareProgress): void;
  /** A part of the prepared store read later failed its check (the store is gone: serve the API again to rebuild it). */
  onDamaged?(error: Error): void;
  /** Cancels the load. */
  signal?: AbortSignal;
}

/** The loaded API, and how to stop what it started (the demo API's server). */
export interface ServedApi {
  api: LoadedApi;
  close(): Promise<void>;
}

export async function loadApi(options: ApiLoadOptions): Promise<ServedApi> {
  const { profile, logger, paths } = options;

  let demo: DemoServer | undefined;
  let spec = profile.spec;
  let baseUrl = profile.baseUrl;
  let closeStore: (() => void) | undefined;
  if (spec === DEMO_SPEC) {
    // Loaded when the demo is served (its SQLite store and HTTP server are no part of any other start).
    const { startDemoServer, demoSpecPath } = await import('../demo/demoServer.ts');
    demo = await startDemoServer({ dataDir: paths.demo, logger: logger.child('demo') });
    spec = demoSpecPath();
    baseUrl ??= demo.url;
    logger.info(`demo API serving on ${demo.url}`);
  }
  try {
    const prepared = await options.preparation.prepare({
      spec,
      cacheDir: paths.specCache,
      ...(options.refreshSpec ? { refresh: true } : {}),
      ...(profile.allowExternalRefs ? { allowExternalRefs: profile.allowExternalRefs } : {}),
      ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.onDamaged ? { onDamaged: options.onDamaged } : {}),
    });
    closeStore = prepared.close;
    const { catalogue, search, readyMs } = prepared;
    // The API's own words for search live in its profile (a preset's, or the person's file), read at each search.
    search.useWords(profile.words);
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
    const api: LoadedApi = {
      profile,
      id: apiIdentifier(profile.name),
      baseUrl: baseUrl.replace(/\/$/, ''),
      auth,
      catalogue,
      search,
      origin: prepared.origin,
      readyMs,
      cache: prepared.cache,
      clientNames: clientNamesOf(profile),
      shape: prepared.shape,
    };
    return {
      api,
      async close() {
        prepared.close();
        await demo?.close();
      },
    };
  } catch (error) {
    closeStore?.();
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
