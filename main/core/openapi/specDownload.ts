// Downloads an OpenAPI document (or a file it refers to) with a byte cap and a
// time cap enforced while the body streams: a chunked, slow or endless body
// is cut off at the cap, so memory stays bounded whatever the server sends.

export interface DownloadLimits {
  fetch?: typeof fetch;
  /** The whole download, headers and body: default 20 s. */
  timeoutMs?: number;
  /** Bytes of body read before giving up: default 64 MiB. */
  maxBytes?: number;
}

export const DEFAULT_SPEC_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_SPEC_TIMEOUT_MS = 20_000;

export async function downloadText(url: string, limits: DownloadLimits = {}): Promise<string> {
  const doFetch = limits.fetch ?? fetch;
  const max = limits.maxBytes ?? DEFAULT_SPEC_MAX_BYTES;
  const timeoutMs = limits.timeoutMs ?? DEFAULT_SPEC_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    const response = await raceAbort(
      doFetch(url, { signal: controller.signal, headers: { accept: 'application/json, application/yaml, text/yaml, */*' } }),
      controller.signal,
    );
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
