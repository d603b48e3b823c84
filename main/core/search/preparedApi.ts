// A profile's API, ready to serve: its catalogue, search index and client
// shape, prepared once from the OpenAPI document and kept in a prepared store
// (`<data dir>/spec-cache/api-<hash of the location>.bin`, 0600; see
// util/sectionFile.ts for the layout), then opened from there on every start.
//
// Preparing (`prepareStore`) is the heavy part: read, parse, resolve $refs,
// build the catalogue, index it, work out every operation's search features,
// and write the store. The companion runs it in a worker thread
// (preparation.ts), so serving never waits on it; tests and tools may run it
// here. Opening (`openPreparedApi`) is light and never blocks for long: it
// reads what a served API needs at once — every operation's outline (name,
// method, path, summary, tags), the client shape, the search index — a
// chunk at a time with turns of the event loop between, and leaves the rest
// on disk: an operation's parameters, body, responses, samples and
// description, and its search features, are read when first used (a call,
// a search answer's card, re-ranking), a few kept in memory. Microsoft
// Graph's 47 MB document opens in about a second and costs a fraction of
// what its parsed form would.
//
// A store is keyed by the document's sha256 together with a stamp of the code
// that builds it (the Airlock version and the size and time of its files), so
// an edited document or a different Airlock rebuilds it. A local document that
// is still the very file the store was made from — same device, inode, size,
// modification and change time, as git's index checks — is not even read (one
// modified within 2 s before it was read is always hashed, since an edit in
// the same tick would not show; the change time cannot be set back by cp -p,
// rsync -t or touch). A document that may pull in other files (a profile that
// allows external $refs) is never kept: its bytes alone do not determine what
// it resolves to; it gets a store of its own for that one load, removed once
// opened. Every section and entry is checked (CRC-32) when read: a store that
// fails a check is never used, and is rebuilt.
import { createHash } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { AirlockError, errorMessage } from '../util/errors.ts';
import type { ApiProgress } from '../../../contract/apis.ts';
import { tempPrefix } from '../util/atomicWrite.ts';
import { DamagedFile, SectionFileReader, SectionFileWriter, type TableIndex } from '../util/sectionFile.ts';
import { silentLogger } from '../log/logger.ts';
import { AIRLOCK_VERSION } from '../util/version.ts';
import { OperationSearch, type OperationSearchState } from './operationSearch.ts';
import { CompactIndex } from './compactIndex.ts';
import { featuresFromJson } from './operationFeatures.ts';
import {
  buildCatalogue,
  catalogueFromData,
  detailsOf,
  outlinedOperations,
  outlineOf,
  type ApiOperation,
  type Catalogue,
  type CatalogueData,
  type OperationDetails,
  type OperationOutline,
} from '../openapi/catalogue.ts';
import { SchemaTableReader, SchemaTableWriter } from '../openapi/schemaTable.ts';
import { clientShapeJson } from '../sandbox/guestClient.ts';
import type { ClientShape } from '../sandbox/engine.ts';
import {
  dereferenceDocument,
  isUrl,
  parseDocument,
  readDocumentSource,
  type LoadOptions,
  type OpenApiDocument,
  type SpecOrigin,
} from '../openapi/loadDocument.ts';

/** Bumped whenever what the store holds changes shape. */
export const API_CACHE_FORMAT = 6;

export interface PreparedApi {
  catalogue: Catalogue;
  search: OperationSearch;
  /** The document's top-level `security` requirement. */
  security: unknown;
  origin: SpecOrigin;
  /** `hit`: opened from a store already made; `miss`: prepared now (and kept); `off`: prepared now for this load only. */
  cache: 'hit' | 'miss' | 'off';
  /** Read, parse or open, and index, in ms. */
  readyMs: number;
  /** The sandbox client's tree (call path → operation id): what a run that touches this API builds its client from. */
  shape: ClientShape;
  /** Closes the store (operations' details can no longer be read). */
  close(): void;
}

/** How far a preparation is (the contract's, as the screens and the CLI show it): its phase, percent and operations so far. */
export type PrepareProgress = ApiProgress;
/** The steps of preparing, in order. */
export type PreparePhase = ApiProgress['phase'];

/** Each phase's share of a preparation (from a profile of Microsoft Graph's document), in percent. */
const PHASE_SHARE: Record<PreparePhase, number> = { reading: 2, parsing: 6, resolving: 14, cataloguing: 4, indexing: 56, writing: 12, opening: 6 };
const PHASES = Object.keys(PHASE_SHARE) as PreparePhase[];

/** The overall percentage at `fraction` (0–1) of `phase`. */
export function progressAt(phase: PreparePhase, fraction: number): number {
  let before = 0;
  for (const p of PHASES) {
    if (p === phase) break;
    before += PHASE_SHARE[p];
  }
  return Math.min(100, Math.round(before + PHASE_SHARE[phase] * Math.max(0, Math.min(1, fraction))));
}

export interface PrepareOptions extends LoadOptions {
  /** Default true. */
  cache?: boolean;
  /** Reads the document (tests count the reads). */
  readSource?: typeof readDocumentSource;
  /** How recent a document's times may be before the fast path distrusts them (default 2 s; tests use 0). */
  racyMs?: number;
  /** The code stamp (the host's, so the host's quick check and the worker's store agree); worked out here when absent. */
  code?: string;
  onProgress?(progress: PrepareProgress): void;
  /** Stops between steps (an AbortError). */
  signal?: AbortSignal;
}

/** A prepared store ready to open, and how it came to be. */
export interface PreparedStore {
  file: string;
  cache: 'hit' | 'miss' | 'off';
  origin: SpecOrigin;
  /** When preparation began (performance.now() of the process that asked), for readyMs. */
  startedMs?: number;
}

interface StoreHeader {
  format: number;
  code: string;
  location: string;
  sha256: string;
  /** A local document's file identity and times when it was read for the store (the fast path), and when that was. */
  file?: FileStamp;
  readAtMs?: number;
  operations: number;
  outlineChunks: number;
}

interface FileStamp {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** What the `meta` section holds: the catalogue's own fields and the document's security requirement. */
type StoreMeta = Omit<CatalogueData, 'operations'> & { security: unknown };

/** A document modified this close to when it was read may have changed within the same timestamp: hash it. */
const RACY_MS = 2_000;
/** Operations per outline chunk: each chunk is parsed between turns of the event loop. */
const OUTLINE_CHUNK = 500;
/** Operations' details kept in memory, most recently used. */
const KEPT_DETAILS = 256;

/** The store a document's location is kept in. */
export function storeFileOf(spec: string, cacheDir: string): string {
  const local = isUrl(spec) ? undefined : resolvePath(spec);
  return join(
    cacheDir,
    `api-${createHash('sha256')
      .update(local ?? spec)
      .digest('hex')
      .slice(0, 24)}.bin`,
  );
}

/**
 * The quick check, done where the API is served: a local document that is still the very file its store was made
 * from, with a store this code made. Undefined when the store must be checked against the document's bytes or made.
 */
export async function findPreparedStore(
  spec: string,
  options: Pick<PrepareOptions, 'cacheDir' | 'cache' | 'allowExternalRefs' | 'racyMs' | 'code'>,
): Promise<PreparedStore | undefined> {
  if (!cacheable(options) || isUrl(spec)) return undefined;
  const code = options.code ?? (await codeStamp().catch(() => undefined));
  if (code === undefined) return undefined;
  const location = resolvePath(spec);
  const file = storeFileOf(spec, options.cacheDir);
  const [header, now] = await Promise.all([readHeader(file), fileStamp(location)]);
  if (header && now && sameFile(header, code, location, now, options.racyMs ?? RACY_MS)) return { file, cache: 'hit', origin: { kind: 'file', location } };
  return undefined;
}

/**
 * Makes sure a prepared store for the document exists, and says where: the one already made when it fits the
 * document's bytes and this code, else a new one. The heavy part of serving an API (a worker runs it).
 */
export async function prepareStore(spec: string, options: PrepareOptions): Promise<PreparedStore> {
  const startedMs = performance.now();
  const progress = options.onProgress ?? (() => undefined);
  const check = () => options.signal?.throwIfAborted();
  const keep = cacheable(options);
  const file = storeFileOf(spec, options.cacheDir);
  const code = keep ? (options.code ?? (await codeStamp().catch(() => undefined))) : undefined;
  const useStore = code !== undefined;
  const local = isUrl(spec) ? undefined : resolvePath(spec);

  // To the microsecond: a file changed within the same millisecond as it is read is not taken for one changed before.
  const readAtMs = performance.timeOrigin + performance.now();
  const now = local && useStore ? await fileStamp(local) : undefined;
  const cached = useStore ? await readHeader(file) : undefined;
  if (cached && now && sameFile(cached, code!, local!, now, options.racyMs ?? RACY_MS))
    return { file, cache: 'hit', origin: { kind: 'file', location: local! }, startedMs };

  progress({ phase: 'reading', percent: 0 });
  const read = await readAndParse(spec, options, (sha256, origin) => !!cached && useStore && sameContent(cached, code!, origin.location, sha256));
  if (read.kept) return { file, cache: 'hit', origin: read.origin, startedMs };
  const { origin, sha256, parsed, refs } = read;
  check();
  progress({ phase: 'resolving', percent: progressAt('resolving', 0) });
  let resolved = 0;
  const loaded = await dereferenceDocument(parsed, origin, {
    ...options,
    onDereference: () => {
      if (++resolved % 2000 === 0) progress({ phase: 'resolving', percent: progressAt('resolving', refs > 0 ? resolved / refs : 0) });
    },
  });
  check();
  progress({ phase: 'cataloguing', percent: progressAt('cataloguing', 0) });
  const catalogue = buildCatalogue(loaded.document, loaded.refNames);
  const total = catalogue.operations.length;
  progress({ phase: 'indexing', percent: progressAt('indexing', 0), operations: total });
  // Features are worked out as the index learns its vocabulary (the second half of indexing).
  const search = new OperationSearch(catalogue, {
    tags: loaded.document.tags,
    onProgress: (indexed) => progress({ phase: 'indexing', percent: progressAt('indexing', (0.5 * indexed) / Math.max(1, total)), operations: indexed, total }),
  });
  check();
  progress({ phase: 'writing', percent: progressAt('writing', 0), operations: total });

  const target = useStore ? file : join(options.cacheDir, `once-${randomBytes(8).toString('hex')}.bin`);
  const header: Omit<StoreHeader, 'outlineChunks'> = {
    format: API_CACHE_FORMAT,
    code: code ?? 'once',
    location: origin.location,
    sha256,
    ...(now ? { file: now, readAtMs } : {}),
    operations: total,
  };
  await removeStaleTemps(target);
  await writeStore(target, header, catalogue, search, loaded.document.security, (fraction) =>
    progress({ phase: 'writing', percent: progressAt('writing', fraction), operations: total }),
  );
  return { file: target, cache: useStore ? 'miss' : 'off', origin, startedMs };
}

/**
 * Reads and hashes the document; unless `keep` says the store already fits those bytes, parses it. Its bytes and
 * text are this function's own, gone once it returns (Microsoft Graph's are 47 MB each).
 */
async function readAndParse(
  spec: string,
  options: PrepareOptions,
  keep: (sha256: string, origin: SpecOrigin) => boolean,
): Promise<{ kept: true; origin: SpecOrigin } | { kept: false; origin: SpecOrigin; sha256: string; parsed: OpenApiDocument; refs: number }> {
  const source = await (options.readSource ?? readDocumentSource)(spec, options);
  options.signal?.throwIfAborted();
  const sha256 = createHash('sha256').update(source.bytes).digest('hex');
  if (keep(sha256, source.origin)) return { kept: true, origin: source.origin };
  options.onProgress?.({ phase: 'parsing', percent: progressAt('parsing', 0) });
  const text = source.bytes.toString('utf8');
  const parsed = await parseDocument(text, source.origin.location, options.cacheDir);
  return { kept: false, origin: source.origin, sha256, parsed, refs: countRefs(text) };
}

async function writeStore(
  file: string,
  header: Omit<StoreHeader, 'outlineChunks'>,
  catalogue: Catalogue,
  search: OperationSearch,
  security: unknown,
  progress: (fraction: number) => void,
): Promise<void> {
  const writer = await SectionFileWriter.create(file);
  try {
    const { operations } = catalogue;
    const { title, version, description, servers, warnings, securitySchemes } = catalogue;
    const meta: StoreMeta = { title, version, ...(description !== undefined ? { description } : {}), servers, warnings, securitySchemes, security };
    await writer.section('meta', JSON.stringify(meta));
    let outlineChunks = 0;
    for (let start = 0; start < operations.length || outlineChunks === 0; start += OUTLINE_CHUNK) {
      await writer.section(`outline.${outlineChunks++}`, JSON.stringify(operations.slice(start, start + OUTLINE_CHUNK).map(outlineOf)));
    }
    const shape = clientShapeJson(operations);
    await writer.section('shape', shape);
    await writer.section('shape.top', JSON.stringify(Object.keys(JSON.parse(shape) as object)));
    progress(0.05);

    // Each operation's details, every schema named or shared written once, in the schema table.
    const details = operations.map(detailsOf);
    const schemas = new SchemaTableWriter(details, catalogue.refNames);
    await writer.table(
      'details',
      eachOf(
        details,
        (d) => schemas.encode(d),
        (i) => i % 1000 === 0 && progress(0.05 + (0.45 * i) / details.length),
      ),
    );
    const table = schemas.table();
    await writer.table('schemas', table.texts);
    await writer.section('schemaNames', JSON.stringify(table.names));
    progress(0.6);
    await writer.table(
      'features',
      eachOf(operations, (_, i) => search.featuresJson(i)),
    );
    progress(0.75);

    // The search: what it learnt as JSON, its compact index as bytes (opened without parsing).
    const { index: _index, ...state } = search.toJSON();
    await writer.section('search', JSON.stringify(state));
    const { terms, offsets, postings, fieldLength, ...recallMeta } = search.compactIndex().toParts();
    await writer.section('recall.meta', JSON.stringify(recallMeta));
    await writer.section('recall.terms', JSON.stringify(terms));
    await writer.section('recall.offsets', offsets);
    await writer.section('recall.postings', postings);
    await writer.section('recall.fieldLength', fieldLength);
    progress(0.95);
    await writer.commit({ ...header, outlineChunks } satisfies StoreHeader);
    progress(1);
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

function* eachOf<T>(items: readonly T[], text: (item: T, i: number) => string, onEach?: (i: number) => void): Generator<string> {
  for (let i = 0; i < items.length; i++) {
    onEach?.(i);
    yield text(items[i]!, i);
  }
}

export interface OpenOptions {
  /** Told how far opening is (the `opening` phase). */
  onProgress?(progress: PrepareProgress): void;
  /** Called once when a part of the store read later fails its check (the store is then rebuilt by whoever serves it). */
  onDamaged?(error: Error): void;
}

/**
 * Opens a prepared store as a served API: its outlines, shape and search index read a chunk at a time (a turn
 * of the event loop between chunks), the rest left on disk and read on first use. A store that fails a check is a
 * DamagedFile error; a temporary one (`cache: 'off'`) is removed once open.
 */
export async function openPreparedApi(store: PreparedStore, options: OpenOptions = {}): Promise<PreparedApi> {
  const started = store.startedMs ?? performance.now();
  const reader = SectionFileReader.open(store.file);
  if (store.cache === 'off') rmSync(store.file, { force: true });
  try {
    const header = reader.header as unknown as StoreHeader;
    if (header.format !== API_CACHE_FORMAT || !Number.isSafeInteger(header.operations) || !Number.isSafeInteger(header.outlineChunks))
      throw new DamagedFile(store.file, 'a header of another format');
    const phase = (fraction: number) => options.onProgress?.({ phase: 'opening', percent: progressAt('opening', fraction), operations: header.operations });
    const meta = JSON.parse(reader.text('meta')) as StoreMeta;
    const shape: ClientShape = {
      key: `${header.sha256.slice(0, 16)}.${header.code.slice(0, 8)}`,
      json: reader.text('shape'),
      top: JSON.parse(reader.text('shape.top')) as string[],
    };

    // Details: read on first use, the most recent kept.
    let damaged = false;
    const onDamaged = (error: unknown) => {
      if (!damaged) {
        damaged = true;
        // Never trusted again: the next preparation makes it afresh.
        if (store.cache !== 'off') rmSync(store.file, { force: true });
        options.onDamaged?.(error as Error);
      }
      return new AirlockError('unavailable', `the prepared store of ${store.origin.location} is damaged (${errorMessage(error)}); it is being prepared again`, {
        hint: 'retry in a moment',
      });
    };
    const names = JSON.parse(reader.text('schemaNames')) as (string | null)[];
    const schemaIndex = reader.tableIndex('schemas');
    if (names.length !== schemaIndex.size) throw new DamagedFile(store.file, 'schema names do not match the schema table');
    const refNames = new WeakMap<object, string>();
    const schemas = new SchemaTableReader(
      { size: schemaIndex.size, entry: (i) => reader.entry(schemaIndex, i, 'schemas'), name: (i) => names[i] ?? null },
      refNames,
    );
    const detailIndex = reader.tableIndex('details');
    const featureIndex = reader.tableIndex('features');
    if (detailIndex.size !== header.operations || featureIndex.size !== header.operations)
      throw new DamagedFile(store.file, 'tables do not match the operations');
    const details = keptReads<OperationDetails>(KEPT_DETAILS, (i) => {
      try {
        return schemas.decode(reader.entry(detailIndex, i, 'details')) as OperationDetails;
      } catch (error) {
        throw onDamaged(error);
      }
    });
    // Operations from their outlines, a chunk at a time.
    const make = outlinedOperations(details);
    const operations: ApiOperation[] = [];
    for (let i = 0; i < header.outlineChunks; i++) {
      for (const outline of JSON.parse(reader.text(`outline.${i}`)) as OperationOutline[]) operations.push(make(outline, operations.length));
      phase((0.4 * (i + 1)) / header.outlineChunks);
      await turn();
    }
    if (operations.length !== header.operations) throw new DamagedFile(store.file, 'operations missing');
    const catalogue = catalogueFromData({ ...meta, operations }, refNames);
    phase(0.5);
    await turn();

    const state = JSON.parse(reader.text('search')) as Omit<OperationSearchState, 'index'>;
    if (!OperationSearch.fits(state, header.operations)) throw new DamagedFile(store.file, 'a search state of another format');
    phase(0.7);
    await turn();
    const index = new CompactIndex({
      ...(JSON.parse(reader.text('recall.meta')) as Pick<
        ConstructorParameters<typeof CompactIndex>[0],
        'documentCount' | 'size' | 'fieldIds' | 'avgFieldLength' | 'documentIds'
      >),
      terms: JSON.parse(reader.text('recall.terms')) as string[],
      offsets: words(reader.bytes('recall.offsets')),
      postings: words(reader.bytes('recall.postings')),
      fieldLength: words(reader.bytes('recall.fieldLength')),
    });
    const search = new OperationSearch(catalogue, {}, { ...state, index, features: (i) => readFeatures(reader, featureIndex, i, onDamaged) });
    phase(1);
    return {
      catalogue,
      search,
      security: meta.security,
      origin: store.origin,
      cache: store.cache,
      readyMs: performance.now() - started,
      shape,
      close: () => reader.close(),
    };
  } catch (error) {
    reader.close();
    throw error;
  }
}

function readFeatures(reader: SectionFileReader, index: TableIndex, i: number, onDamaged: (error: unknown) => Error) {
  try {
    return featuresFromJson(reader.entry(index, i, 'features'));
  } catch (error) {
    throw onDamaged(error);
  }
}

/** A section's bytes as 32-bit words (copied when the bytes do not start on a 4-byte boundary). */
function words(bytes: Buffer): Uint32Array {
  if (bytes.length % 4 !== 0) throw new TypeError('a section of 32-bit words of an odd length');
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes);
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.length / 4);
}

/** A read by position, the last `max` results kept. */
function keptReads<T>(max: number, read: (i: number) => T): (i: number) => T {
  const kept = new Map<number, T>();
  return (i) => {
    let value = kept.get(i);
    if (value !== undefined) {
      kept.delete(i);
    } else {
      value = read(i);
      if (kept.size >= max) kept.delete(kept.keys().next().value!);
    }
    kept.set(i, value);
    return value;
  };
}

/**
 * Prepares and opens here, in this thread: what tests and tools use. The companion prepares in a worker
 * (preparation.ts) and opens the result. A store that is damaged is prepared again.
 */
export async function prepareApi(spec: string, options: PrepareOptions): Promise<PreparedApi> {
  const log = options.logger ?? silentLogger;
  const found = await prepareStore(spec, options);
  try {
    return await openPreparedApi(found);
  } catch (error) {
    if (!(error instanceof DamagedFile) && !(error instanceof SyntaxError)) throw error;
    log.debug(`API store ${found.file} not used: ${errorMessage(error)}; preparing again`);
    await rm(found.file, { force: true });
    return openPreparedApi(await prepareStore(spec, options));
  }
}

/** A store of a location may be kept: caching is on and no external $ref can change what the document resolves to. */
function cacheable(options: Pick<PrepareOptions, 'cache' | 'allowExternalRefs'>): boolean {
  return options.cache !== false && (options.allowExternalRefs ?? []).length === 0;
}

async function fileStamp(location: string): Promise<FileStamp | undefined> {
  const s = await stat(location).catch(() => undefined);
  return s ? { dev: s.dev, ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs } : undefined;
}

/** A store's header, or undefined when there is none or it is not one of ours. */
async function readHeader(file: string): Promise<StoreHeader | undefined> {
  try {
    const reader = SectionFileReader.open(file);
    reader.close();
    return reader.header as unknown as StoreHeader;
  } catch {
    return undefined;
  }
}

/** Made by this code, for this document's bytes. */
function sameContent(cached: StoreHeader, code: string, location: string, sha256: string): boolean {
  return cached.format === API_CACHE_FORMAT && cached.code === code && cached.location === location && cached.sha256 === sha256;
}

/** Made by this code from this very file, untouched since, and not modified just before it was read (an edit in the same tick would not show). */
function sameFile(cached: StoreHeader, code: string, location: string, now: FileStamp, racyMs: number): boolean {
  const was = cached.file;
  return (
    cached.format === API_CACHE_FORMAT &&
    cached.code === code &&
    cached.location === location &&
    was !== undefined &&
    typeof cached.readAtMs === 'number' &&
    was.dev === now.dev &&
    was.ino === now.ino &&
    was.size === now.size &&
    was.mtimeMs === now.mtimeMs &&
    was.ctimeMs === now.ctimeMs &&
    Math.max(now.mtimeMs, now.ctimeMs) < cached.readAtMs - racyMs
  );
}

/** How many `$ref`s a document's text holds (the denominator of resolving's progress). */
function countRefs(text: string): number {
  let n = 0;
  for (let at = text.indexOf('$ref'); at !== -1; at = text.indexOf('$ref', at + 4)) n++;
  return n;
}

/** A turn of the event loop: what waits to be served is served before the next chunk. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Temp files of writes that a process exit cut short, and stores made for one load that were never opened. */
async function removeStaleTemps(file: string): Promise<void> {
  const dir = dirname(file);
  const prefix = tempPrefix(file);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => (n.startsWith(prefix) && n.endsWith('.tmp')) || n.startsWith('once-'))) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    // A minute old: no write still going on (another companion's) is removed under it.
    if (info && Date.now() - info.mtimeMs > 60_000) await rm(path, { force: true }).catch(() => undefined);
  }
}

let stamp: Promise<string> | undefined;

/**
 * What identifies the code that prepares stores: the version, and the size and modification time of its files — in
 * a checkout, the sources of this folder, of openapi/ and of the client shape; in a build, the bundled file that
 * holds this module (every build rewrites it).
 */
export function codeStamp(): Promise<string> {
  return (stamp ??= (async () => {
    const here = fileURLToPath(import.meta.url);
    let files = [here];
    if (here.endsWith('.ts')) {
      const dirs = [dirname(here), join(dirname(here), '..', 'openapi')];
      files = (await Promise.all(dirs.map(async (dir) => (await readdir(dir)).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f))))).flat();
      files.push(join(dirname(here), '..', 'sandbox', 'guestClient.ts'), join(dirname(here), '..', 'util', 'sectionFile.ts'));
      files.sort();
    }
    const hash = createHash('sha256').update(`${AIRLOCK_VERSION}\n`);
    for (const f of files) {
      const s = await stat(f);
      hash.update(`${f}\0${s.size}\0${s.mtimeMs}\n`);
    }
    return hash.digest('hex').slice(0, 16);
  })());
}
