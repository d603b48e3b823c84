// External $refs: a document is untrusted input, so a `$ref` that points
// outside it (another file, a file: URL, ../, another host) is refused by
// default with an error naming the ref. A profile may allow base directories
// or origins (`allowExternalRefs`); then every file the parser reads — the
// refs of refs included — goes through one check, with the same byte and time
// caps as the document itself. No local file is read because a document asked.
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AirlockError } from '../util/errors.ts';
import { DEFAULT_SPEC_MAX_BYTES, downloadText, type DownloadLimits } from './specDownload.ts';

/** Calls `visit` for every `$ref` in the document that is not a pointer into it (`#/…`), with the object holding it. */
function eachExternalRef(document: unknown, visit: (holder: Record<string, unknown>, ref: string) => void): void {
  const seen = new Set<object>();
  const walk = (value: unknown): void => {
    if (!value || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    const record = value as Record<string, unknown>;
    for (const [key, child] of Object.entries(record)) {
      if (key === '$ref' && typeof child === 'string' && !child.startsWith('#')) visit(record, child);
      else walk(child);
    }
  };
  walk(document);
}

/** Every external `$ref` value in the document. */
export function findExternalRefs(document: unknown): string[] {
  const found = new Set<string>();
  eachExternalRef(document, (_, ref) => found.add(ref));
  return [...found];
}

/** Rewrites relative external refs to absolute URLs against the document's own location. */
export function absolutizeRefs(document: unknown, base: string): void {
  eachExternalRef(document, (holder, ref) => {
    holder.$ref = new URL(ref, base).href;
  });
}

/** The document's location as a URL that relative refs resolve against. */
export function baseUrlOf(location: string): string {
  return /^https?:\/\//i.test(location) ? location : pathToFileURL(location).href;
}

/** An allowlist entry is an absolute directory or an http(s) origin, optionally with a path prefix. */
export function checkAllowEntry(entry: string): string | undefined {
  if (/^https?:\/\//i.test(entry)) {
    try {
      const url = new URL(entry);
      if (url.search || url.hash || url.username || url.password) return 'an origin must have no query, fragment or credentials';
      return undefined;
    } catch {
      return 'is not a valid URL';
    }
  }
  return isAbsolute(entry) ? undefined : 'must be an absolute directory or an http(s) origin';
}

export function refusedRef(ref: string, location: string): AirlockError {
  return new AirlockError('spec', `${location}: $ref "${ref}" points outside the document; external $refs are refused`, {
    hint: "if you trust it, add its directory or origin to the profile's allowExternalRefs",
  });
}

async function fileAllowed(url: string, allow: readonly string[]): Promise<boolean> {
  let path: string;
  try {
    path = await realpath(fileURLToPath(url));
  } catch {
    return false; // a missing file is refused like a forbidden one: nothing to read
  }
  for (const entry of allow) {
    if (/^https?:\/\//i.test(entry)) continue;
    const base = await realpath(entry).catch(() => undefined);
    if (base && (path === base || path.startsWith(base.endsWith(sep) ? base : base + sep))) return true;
  }
  return false;
}

function httpAllowed(url: string, allow: readonly string[]): boolean {
  const target = new URL(url);
  return allow.some((entry) => {
    if (!/^https?:\/\//i.test(entry)) return false;
    const base = new URL(entry);
    if (base.origin !== target.origin) return false;
    const prefix = base.pathname.endsWith('/') ? base.pathname : base.pathname + '/';
    return base.pathname === '/' || target.pathname === base.pathname || target.pathname.startsWith(prefix);
  });
}

async function readFileCapped(path: string, max: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(max + 1, 1024 * 1024));
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > max) throw new Error(`${path} is larger than ${max} bytes`);
      chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
    }
    return Buffer.concat(chunks);
  } finally {
    await handle.close();
  }
}

/**
 * Resolver options for the ref parser: the built-in file and http resolvers
 * are replaced by ones that check the allowlist before reading anything.
 *
 * The parser replaces a resolver's error with "Error reading file", so the
 * first refusal is also kept for the caller (`refusal()`) to report.
 */
export function guardedResolvers(allow: readonly string[], location: string, limits: DownloadLimits) {
  const max = limits.maxBytes ?? DEFAULT_SPEC_MAX_BYTES;
  let first: AirlockError | undefined;
  const refuse = (url: string) => (first ??= refusedRef(url, location));
  const resolve = {
    external: allow.length > 0,
    // @readme/openapi-parser passes through only `file` and `http` (an object
    // replaces the built-in resolver's methods), so the guards go there.
    file: {
      order: 1,
      canRead: (file: { url: string }) => !/^https?:\/\//i.test(file.url),
      read: async (file: { url: string }) => {
        const url = /^file:/i.test(file.url) ? file.url : pathToFileURL(file.url).href;
        if (!(await fileAllowed(url, allow))) throw refuse(file.url);
        return readFileCapped(await realpath(fileURLToPath(url)), max);
      },
    },
    http: {
      order: 2,
      canRead: (file: { url: string }) => /^https?:\/\//i.test(file.url),
      read: async (file: { url: string }) => {
        if (!httpAllowed(file.url, allow)) throw refuse(file.url);
        return downloadText(file.url, limits);
      },
    },
  };
  return { resolve, refusal: () => first };
}
