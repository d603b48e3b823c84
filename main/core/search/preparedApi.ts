// A profile's API, ready to serve: its catalogue and search index (with what
// the index learnt from the document), built from the OpenAPI document or,
// when the document is unchanged since a previous start, restored from the
// on-disk cache. Parsing and resolving a large document is most of the work
// of a start (GitHub's 13 MB: ~470 ms to parse and dereference, ~200 ms to
// index); restoring is a read and two deserialisations.
//
// The cache (`<data dir>/spec-cache/api-<hash of the location>.bin`, one file
// per document location, 0600) is keyed by the document's sha256 together
// with a stamp of the code that builds catalogues and indexes (the Airlock
// version and the size and time of its files), so an edited document or a
// different Airlock rebuilds it. A local document that is still the very file
// it was made from — same device, inode, size, modification and change time,
// as git's index checks — is not even read (one modified within 2 s before it
// was read is always hashed, since an edit in the same tick would not show;
// the change time cannot be set back by cp -p, rsync -t or touch). A document that may
// pull in other files (a profile that allows external $refs) is never
// cached: its bytes alone do not determine what it resolves to. The cache is
// an accelerator only: an unreadable, foreign or damaged file is ignored and
// rewritten. It is written on a miss before the start goes on (~40 ms for
// GitHub's document): a client that stops its server right after a health
// check still leaves it for the next start. No fsync: a torn file fails its
// checks and is rebuilt.
import { createHash } from 'node:crypto';
import { readFile, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { errorMessage } from '../util/errors.ts';
import { tempPrefix, writeFileAtomic } from '../util/atomicWrite.ts';
import { silentLogger } from '../log/logger.ts';
import { AIRLOCK_VERSION } from '../util/version.ts';
import { OperationSearch, type OperationSearchState } from './operationSearch.ts';
import { buildCatalogue, catalogueData, catalogueFromData, type Catalogue, type CatalogueData } from '../openapi/catalogue.ts';
import { isUrl, readDocumentSource, resolveDocument, type LoadOptions, type SpecOrigin } from '../openapi/loadDocument.ts';

/** Bumped whenever what the cache holds changes shape. */
export const API_CACHE_FORMAT = 5;

export interface PreparedApi {
  catalogue: Catalogue;
  search: OperationSearch;
  /** The document's top-level `security` requirement. */
  security: unknown;
  origin: SpecOrigin;
  /** `hit`: restored from the cache; `miss`: built (and cached after start-up); `off`: built, never cached. */
  cache: 'hit' | 'miss' | 'off';
  /** Read, parse or restore, and index, in ms. */
  readyMs: number;
}

export interface PrepareOptions extends LoadOptions {
  /** Default true. */
  cache?: boolean;
  /** Reads the document (tests count the reads). */
  readSource?: typeof readDocumentSource;
  /** How recent a document's times may be before the fast path distrusts them (default 2 s; tests use 0). */
  racyMs?: number;
}

interface CacheHeader {
  format: number;
  code: string;
  location: string;
  sha256: string;
  /** A local document's file identity and times when it was read for the cache (the fast path), and when that was. */
  file?: FileStamp;
  readAtMs?: number;
}

interface FileStamp {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** A document modified this close to when it was read may have changed within the same timestamp: hash it. */
const RACY_MS = 2_000;

interface CachePayload {
  catalogue: CatalogueData;
  refList: [object, string][];
  security: unknown;
  /**
   * The search index and what it learnt from the document (tag descriptions,
   * vocabulary), as JSON text: a radix tree of small objects takes ~5× longer
   * to deserialise from v8's format than JSON.parse takes on its text.
   */
  searchJson: string;
}

export async function prepareApi(spec: string, options: PrepareOptions): Promise<PreparedApi> {
  const started = performance.now();
  const log = options.logger ?? silentLogger;
  const cacheable = options.cache !== false && (options.allowExternalRefs ?? []).length === 0;
  const local = isUrl(spec) ? undefined : resolvePath(spec);
  const file = join(
    options.cacheDir,
    `api-${createHash('sha256')
      .update(local ?? spec)
      .digest('hex')
      .slice(0, 24)}.bin`,
  );
  // A code stamp that cannot be worked out turns the cache off rather than failing the start.
  const code = cacheable ? await codeStamp().catch(() => undefined) : undefined;
  const useCache = code !== undefined;
  const cached = useCache ? await readCacheFile(file).catch(() => undefined) : undefined;
  const restore = (cachedFile: CacheFile, origin: SpecOrigin): PreparedApi | undefined => {
    try {
      const payload = cachedFile.payload();
      const catalogue = catalogueFromData(payload.catalogue, new WeakMap(payload.refList));
      const search = OperationSearch.restore(catalogue, JSON.parse(payload.searchJson) as OperationSearchState);
      return { catalogue, search, security: payload.security, origin, cache: 'hit', readyMs: performance.now() - started };
    } catch (error) {
      log.debug(`API cache ${file} not used: ${errorMessage(error)}; building again`);
      return undefined;
    }
  };

  // Fast path: a local document that is still the very file the cache was made from (same device, inode, size,
  // modification and change times — the change time is set by the system on any write, never by a tool) is not
  // read at all. The times are compared with when the document was read, not when the cache was written.
  const readAtMs = Date.now();
  const stats = local && useCache ? await stat(local).catch(() => undefined) : undefined;
  const now = stats ? { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs } : undefined;
  if (cached && now && sameFile(cached.header, code!, local!, now, options.racyMs ?? RACY_MS)) {
    const hit = restore(cached, { kind: 'file', location: local! });
    if (hit) return hit;
  }

  const source = await (options.readSource ?? readDocumentSource)(spec, options);
  const header: CacheHeader | undefined = useCache
    ? {
        format: API_CACHE_FORMAT,
        code: code!,
        location: source.origin.location,
        sha256: createHash('sha256').update(source.bytes).digest('hex'),
        ...(now ? { file: now, readAtMs } : {}),
      }
    : undefined;
  if (header && cached && sameContent(cached.header, header)) {
    const hit = restore(cached, source.origin);
    if (hit) return hit;
  }

  const loaded = await resolveDocument(source.bytes.toString('utf8'), source.origin, options);
  const catalogue = buildCatalogue(loaded.document, loaded.refNames);
  // The document's tag descriptions teach the search its vocabulary.
  const search = new OperationSearch(catalogue, { tags: loaded.document.tags });
  const security = loaded.document.security;
  if (header) {
    try {
      const data = catalogueData(catalogue);
      // Only the names of schemas the catalogue holds (a document's unused components would only add bytes to read back).
      const held = reachable(data);
      const refList = loaded.refList.filter(([schema]) => held.has(schema));
      await writeCache(file, header, { catalogue: data, refList, security, searchJson: JSON.stringify(search) });
    } catch (error) {
      log.debug(`API cache ${file} not written: ${errorMessage(error)}`);
    }
  }
  return {
    catalogue,
    search,
    security,
    origin: source.origin,
    cache: header ? 'miss' : 'off',
    readyMs: performance.now() - started,
  };
}

interface CacheFile {
  header: CacheHeader;
  /** Decodes the payload; throws on one of an unexpected shape. */
  payload(): CachePayload;
}

/** The cache file: a 4-byte header length, the header as JSON, then the v8-serialised payload (decoded only when used). */
async function readCacheFile(file: string): Promise<CacheFile> {
  const bytes = await readFile(file);
  const length = bytes.readUInt32LE(0);
  const header = JSON.parse(bytes.subarray(4, 4 + length).toString('utf8')) as CacheHeader;
  if (!header || typeof header !== 'object') throw new Error('header of an unexpected shape');
  return {
    header,
    payload() {
      const payload = deserialize(bytes.subarray(4 + length)) as CachePayload;
      if (
        !payload?.catalogue ||
        !Array.isArray(payload.catalogue.operations) ||
        !Array.isArray(payload.refList) ||
        !payload.refList.every((pair) => Array.isArray(pair) && pair[0] !== null && typeof pair[0] === 'object' && typeof pair[1] === 'string') ||
        typeof payload.searchJson !== 'string'
      )
        throw new Error('payload of an unexpected shape');
      return payload;
    },
  };
}

/** Written by this code, for this document's bytes. */
function sameContent(cached: CacheHeader, expected: CacheHeader): boolean {
  return cached.format === API_CACHE_FORMAT && cached.code === expected.code && cached.location === expected.location && cached.sha256 === expected.sha256;
}

/** Written by this code from this very file, untouched since, and not modified just before it was read (an edit in the same tick would not show). */
function sameFile(cached: CacheHeader, code: string, location: string, now: FileStamp, racyMs: number): boolean {
  const was = cached.file;
  return (
    cached.format === API_CACHE_FORMAT &&
    cached.code === code &&
    cached.location === location &&
    was !== undefined &&
    cached.readAtMs !== undefined &&
    was.dev === now.dev &&
    was.ino === now.ino &&
    was.size === now.size &&
    was.mtimeMs === now.mtimeMs &&
    was.ctimeMs === now.ctimeMs &&
    Math.max(now.mtimeMs, now.ctimeMs) < cached.readAtMs - racyMs
  );
}

async function writeCache(file: string, header: CacheHeader, payload: CachePayload): Promise<void> {
  await removeStaleTemps(file);
  const head = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(head.length, 0);
  // No fsync: a torn file fails its checks on the next read and is rebuilt.
  await writeFileAtomic(file, Buffer.concat([length, head, serialize(payload)]), { sync: false });
}

/** Every object and array reachable from `root` (schemas are shared and may be circular). */
function reachable(root: unknown): Set<object> {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (!value || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    for (const child of Array.isArray(value) ? value : Object.values(value)) if (child && typeof child === 'object') stack.push(child);
  }
  return seen;
}

/** Temp files of writes that a process exit cut short. */
async function removeStaleTemps(file: string): Promise<void> {
  const dir = dirname(file);
  const prefix = tempPrefix(file);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(prefix) && n.endsWith('.tmp'))) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    // A minute old: no write still going on (another companion's) is removed under it.
    if (info && Date.now() - info.mtimeMs > 60_000) await rm(path, { force: true }).catch(() => undefined);
  }
}

let stamp: Promise<string> | undefined;

/**
 * What identifies the code that builds catalogues and indexes: the version,
 * and the size and modification time of its files — in a checkout, the
 * sources of this folder and of openapi/; in a build, the bundled file that
 * holds this module (every build rewrites it).
 */
function codeStamp(): Promise<string> {
  return (stamp ??= (async () => {
    const here = fileURLToPath(import.meta.url);
    let files = [here];
    if (here.endsWith('.ts')) {
      const dirs = [dirname(here), join(dirname(here), '..', 'openapi')];
      files = (await Promise.all(dirs.map(async (dir) => (await readdir(dir)).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f))))).flat().sort();
    }
    const hash = createHash('sha256').update(`${AIRLOCK_VERSION}\n`);
    for (const f of files) {
      const s = await stat(f);
      hash.update(`${f}\0${s.size}\0${s.mtimeMs}\n`);
    }
    return hash.digest('hex').slice(0, 16);
  })());
}
