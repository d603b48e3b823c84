// Loads an OpenAPI 3.x document from a file or an http(s) URL (JSON or YAML)
// and resolves its $refs with @readme/openapi-parser. URL documents are
// cached in the data dir so later starts work offline; `refresh` refetches.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { writeFileAtomic } from '../util/atomicWrite.ts';
import { join, resolve as resolvePath } from 'node:path';
import { AirlockError, errorMessage } from '../util/errors.ts';
import { absolutizeRefs, baseUrlOf, findExternalRefs, guardedResolvers, refusedRef } from './externalRefs.ts';
import { DEFAULT_SPEC_MAX_BYTES, downloadText } from './specDownload.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';

export type OpenApiDocument = Record<string, any> & { openapi: string; paths?: Record<string, any> };

export interface SpecOrigin {
  kind: 'file' | 'url';
  location: string; // absolute path or URL
  /** For URLs: where the cached copy lives, and when it was fetched. */
  cacheFile?: string;
  fetchedAt?: string;
  fromCache?: boolean;
}

export interface LoadedDocument {
  document: OpenApiDocument;
  origin: SpecOrigin;
  /** Component names of dereferenced schemas (`Event`), for rendering. */
  refNames: WeakMap<object, string>;
  /** The same names as a list (a WeakMap cannot be listed, and the on-disk cache stores them). */
  refList: [object, string][];
  loadMs: number;
}

/** A document's bytes as read (a file, or a URL's cached copy), before parsing. */
export interface DocumentSource {
  bytes: Buffer;
  origin: SpecOrigin;
}

export interface LoadOptions {
  cacheDir: string;
  refresh?: boolean;
  fetch?: typeof fetch;
  /** Download caps for the document and any external file it refers to. */
  timeoutMs?: number;
  maxBytes?: number;
  /** Directories or origins external $refs may point into; none by default. */
  allowExternalRefs?: readonly string[];
  logger?: Logger;
}

export function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

export async function loadApiDocument(source: string, options: LoadOptions): Promise<LoadedDocument> {
  const started = performance.now();
  const read = await readDocumentSource(source, options);
  const loaded = await resolveDocument(read.bytes.toString('utf8'), read.origin, options);
  return { ...loaded, loadMs: performance.now() - started };
}

/** Reads a document's bytes: a file, or a URL (its cached copy unless `refresh` or none yet). */
export async function readDocumentSource(source: string, options: LoadOptions): Promise<DocumentSource> {
  if (isUrl(source)) {
    const { text, origin } = await readUrl(source, options, options.logger ?? silentLogger);
    return { bytes: Buffer.from(text, 'utf8'), origin };
  }
  const location = resolvePath(source);
  try {
    const max = options.maxBytes ?? DEFAULT_SPEC_MAX_BYTES;
    const { size } = await stat(location);
    if (size > max) throw tooLarge(location, `${megabytes(size)} MB`, max);
    return { bytes: await readFile(location), origin: { kind: 'file', location } };
  } catch (error) {
    if (error instanceof AirlockError) throw error;
    throw new AirlockError('spec', `cannot read OpenAPI document ${location}: ${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}`, {
      hint: 'check the path of the document (the APIs screen\'s "OpenAPI document" field, or --spec)',
    });
  }
}

/** Hooks for a long resolution: after parsing, and at each $ref replaced. */
export interface ResolveHooks {
  onDereference?(): void;
}

/** Parses a document's text and resolves its $refs (external ones only where the options allow). */
export async function resolveDocument(text: string, origin: SpecOrigin, options: LoadOptions & ResolveHooks): Promise<LoadedDocument> {
  const started = performance.now();
  const parsed = await parseDocument(text, origin.location, options.cacheDir);
  return { ...(await dereferenceDocument(parsed, origin, options)), loadMs: performance.now() - started };
}

/** A document's text parsed (JSON, or YAML through the parsed-YAML cache) and checked to be OpenAPI 3.x. */
export async function parseDocument(text: string, location: string, cacheDir: string): Promise<OpenApiDocument> {
  const parsed = await parseCached(text, location, cacheDir);
  checkVersion(parsed, location);
  return parsed;
}

/** Resolves a parsed document's $refs in place (external ones only where the options allow), naming the component schemas. */
export async function dereferenceDocument(
  parsed: OpenApiDocument,
  origin: SpecOrigin,
  options: LoadOptions & ResolveHooks,
): Promise<Omit<LoadedDocument, 'loadMs'>> {
  const refNames = new WeakMap<object, string>();
  const refList: [object, string][] = [];
  const onDereference = (ref: string, value: unknown) => {
    options.onDereference?.();
    const m = /#\/components\/schemas\/([^/]+)$/.exec(ref);
    if (m && value && typeof value === 'object' && !refNames.has(value)) {
      const name = decodeURIComponent(m[1]!);
      refNames.set(value, name);
      refList.push([value, name]);
    }
  };
  const external = findExternalRefs(parsed);
  const allow = options.allowExternalRefs ?? [];
  if (external.length > 0 && allow.length === 0) throw refusedRef(external[0]!, origin.location);
  if (external.length > 0) absolutizeRefs(parsed, baseUrlOf(origin.location));
  const guard = guardedResolvers(allow, origin.location, limitsOf(options));
  // Loaded here, not at start: a start whose document is in the API cache never resolves $refs.
  const { dereference } = await import('@readme/openapi-parser');
  let document: OpenApiDocument;
  try {
    document = (await dereference(parsed as any, {
      dereference: { circular: true, onDereference },
      resolve: guard.resolve as any,
    })) as OpenApiDocument;
  } catch (error) {
    const refusal = guard.refusal();
    if (refusal) throw refusal;
    throw new AirlockError('spec', `cannot resolve $refs in ${origin.location}: ${errorMessage(error)}`);
  }
  return { document, origin, refNames, refList };
}

/**
 * YAML is slow to parse (a 200 KB contract takes ~100 ms); the parsed form is
 * kept as JSON in the cache dir, keyed by the text's sha256, so later starts
 * only JSON.parse it. JSON documents are parsed directly.
 */
async function parseCached(text: string, location: string, cacheDir: string): Promise<OpenApiDocument> {
  if (/^\s*\{/.test(text)) return parseText(text, location);
  const file = join(cacheDir, `parsed-${createHash('sha256').update(text).digest('hex').slice(0, 32)}.json`);
  try {
    return JSON.parse(await readFile(file, 'utf8')) as OpenApiDocument;
  } catch {
    // Not cached yet (or unreadable): parse, then cache best-effort.
  }
  const parsed = await parseText(text, location);
  try {
    await writeFileAtomic(file, JSON.stringify(parsed));
  } catch {
    // A document JSON cannot hold (cyclic YAML aliases) or a read-only cache: parse again next time.
  }
  return parsed;
}

async function parseText(text: string, location: string): Promise<OpenApiDocument> {
  const json = /^\s*\{/.test(text);
  const parseYaml = json ? undefined : (await import('yaml')).parse;
  try {
    const value = json ? JSON.parse(text) : parseYaml!(text, { maxAliasCount: 10_000 });
    if (!value || typeof value !== 'object') throw new Error('the document is not an object');
    return value as OpenApiDocument;
  } catch (error) {
    throw new AirlockError('spec', `${location} is not valid JSON or YAML: ${errorMessage(error).split('\n')[0]!.replace(/:$/, '')}`);
  }
}

function checkVersion(doc: Record<string, any>, location: string): void {
  if (typeof doc.swagger === 'string') {
    throw new AirlockError('spec', `${location} is Swagger ${doc.swagger}; Airlock reads OpenAPI 3.0 and 3.1`, {
      hint: 'convert it first, e.g. with swagger2openapi',
    });
  }
  if (typeof doc.openapi !== 'string' || !/^3\.\d+/.test(doc.openapi)) {
    throw new AirlockError('spec', `${location} is not an OpenAPI 3.x document (no "openapi: 3.x" field)`);
  }
  if (doc.paths !== undefined && (typeof doc.paths !== 'object' || doc.paths === null)) {
    throw new AirlockError('spec', `${location}: "paths" must be an object`);
  }
}

async function readUrl(url: string, options: LoadOptions, logger: Logger): Promise<{ text: string; origin: SpecOrigin }> {
  const key = createHash('sha256').update(url).digest('hex').slice(0, 24);
  const cacheFile = join(options.cacheDir, `${key}.spec`);
  const metaFile = join(options.cacheDir, `${key}.json`);
  const cached = await readCache(cacheFile, metaFile);
  if (cached && !options.refresh) {
    return { text: cached.text, origin: { kind: 'url', location: url, cacheFile, fetchedAt: cached.fetchedAt, fromCache: true } };
  }
  try {
    const text = await downloadText(url, limitsOf(options));
    const fetchedAt = new Date().toISOString();
    await writeFileAtomic(cacheFile, text);
    await writeFileAtomic(metaFile, JSON.stringify({ url, fetchedAt }) + '\n');
    logger.info(`fetched OpenAPI document ${url} (${text.length} bytes), cached`);
    return { text, origin: { kind: 'url', location: url, cacheFile, fetchedAt, fromCache: false } };
  } catch (error) {
    if (/larger than \d+ bytes/.test(errorMessage(error))) throw tooLarge(url, 'larger', options.maxBytes ?? DEFAULT_SPEC_MAX_BYTES);
    // Where it may not be read from (an address, a redirect): said as it is, never replaced by an older copy.
    if (error instanceof AirlockError && error.kind === 'denied') throw error;
    if (cached) {
      logger.warn(`could not refresh ${url} (${errorMessage(error)}); using the copy cached at ${cached.fetchedAt}`);
      return { text: cached.text, origin: { kind: 'url', location: url, cacheFile, fetchedAt: cached.fetchedAt, fromCache: true } };
    }
    throw new AirlockError('network', `cannot fetch OpenAPI document ${url}: ${errorMessage(error)}`, {
      hint: 'check the network, or give a local file instead (the APIs screen\'s "OpenAPI document" field, or --spec)',
      cause: error,
    });
  }
}

function megabytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0);
}

/** A document over the cap on documents: which cap, and how to raise it. */
function tooLarge(location: string, size: string, max: number): AirlockError {
  return new AirlockError('spec', `${location} is ${size === 'larger' ? '' : `${size}, `}over the ${megabytes(max)} MB cap on API documents`, {
    hint: 'raise it with --spec-max-mb (AIRLOCK_SPEC_MAX_MB, or Settings), or serve a smaller document',
  });
}

function limitsOf(options: LoadOptions) {
  return {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
  };
}

async function readCache(cacheFile: string, metaFile: string): Promise<{ text: string; fetchedAt: string } | undefined> {
  try {
    const [text, meta] = await Promise.all([readFile(cacheFile, 'utf8'), readFile(metaFile, 'utf8')]);
    const fetchedAt = String(JSON.parse(meta).fetchedAt ?? (await stat(cacheFile)).mtime.toISOString());
    return { text, fetchedAt };
  } catch {
    return undefined;
  }
}
