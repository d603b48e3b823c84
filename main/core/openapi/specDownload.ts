// Downloads an OpenAPI document (or a file it refers to) with a byte cap and a
// time cap enforced while the body streams: a chunked, slow or endless body
// is cut off at the cap, so memory stays bounded whatever the server sends.
//
// Where it connects is checked as for API calls (documentFetch.ts): the host
// is resolved once and every address classified — link-local and cloud
// metadata addresses are never reached, private and loopback ones only when
// the address given is one — and the checked address is used for the whole
// download. Redirects are followed by hand, at most five, within the origin
// given: one to another origin is refused, naming it (and naming a metadata or
// link-local address as such), so a document is only ever read from where the
// person pointed.
import { AirlockError } from '../util/errors.ts';
import { documentFetch } from './documentFetch.ts';
import { classifyAddress, isLiteralHost, type Resolver } from '../util/addressPolicy.ts';

export interface DownloadLimits {
  /** Replaces the checked fetch (tests); it must not follow redirects itself. */
  fetch?: typeof fetch;
  /** How host names are resolved (tests). */
  resolver?: Resolver;
  /** The whole download, headers and body: default 20 s. */
  timeoutMs?: number;
  /** Bytes of body read before giving up: default 64 MiB. */
  maxBytes?: number;
}

export const DEFAULT_SPEC_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_SPEC_TIMEOUT_MS = 20_000;
/** Redirects followed at most (each within the origin given). */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function downloadText(url: string, limits: DownloadLimits = {}): Promise<string> {
  const doFetch = limits.fetch ?? documentFetch(url, limits.resolver ? { resolver: limits.resolver } : {});
  const max = limits.maxBytes ?? DEFAULT_SPEC_MAX_BYTES;
  const timeoutMs = limits.timeoutMs ?? DEFAULT_SPEC_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    let at = new URL(url);
    let response: Response;
    for (let hop = 0; ; hop++) {
      response = await raceAbort(
        doFetch(at, { signal: controller.signal, redirect: 'manual', headers: { accept: 'application/json, application/yaml, text/yaml, */*' } }),
        controller.signal,
      );
      if (!REDIRECTS.has(response.status)) break;
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get('location');
      if (!location) throw new Error(`HTTP ${response.status} with no Location`);
      const next = new URL(location, at);
      if (next.origin !== at.origin) {
        // A literal address never read from (metadata, link-local…) is named as such, with no hint to go there.
        const cls = isLiteralHost(next.hostname) ? classifyAddress(next.hostname === 'localhost' ? '127.0.0.1' : next.hostname) : 'public';
        if (cls !== 'public' && cls !== 'private' && cls !== 'loopback')
          throw new AirlockError(
            'denied',
            `${at.href} redirects to another origin (${next.origin}), ${cls === 'metadata' ? 'a cloud metadata address' : `a ${cls} address`}, which is never read from`,
          );
        throw new AirlockError('denied', `${at.href} redirects to another origin (${next.origin}): a document is read only from the origin it was given at`, {
          hint: `if you trust ${next.origin}, give the document's address there itself`,
        });
      }
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      at = next;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > max) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`document is larger than ${max} bytes (Content-Length ${declared})`);
    }
    const bytes = await readCapped(response, max, controller.signal);
    return new TextDecoder().decode(bytes);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads a body chunk by chunk; stops and cancels the stream past `max` bytes or on abort. */
async function readCapped(response: Response, max: number, signal: AbortSignal): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await raceAbort(reader.read(), signal);
      if (done) break;
      size += value.byteLength;
      if (size > max) throw new Error(`document is larger than ${max} bytes (stopped reading at ${size})`);
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** A fetch (or read) that ignores its signal still ends when the deadline fires. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
