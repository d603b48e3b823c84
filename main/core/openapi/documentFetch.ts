// The fetch an API document (or a file it refers to) is downloaded with: it
// connects only where the address policy allows, as the egress gate does for
// API calls. The host of the address a person gave is resolved once; every
// address it resolves to is classified: a cloud metadata, link-local,
// unspecified, multicast or reserved address is never reached (IPv4 and
// IPv6, literal or after DNS); a private or loopback one only when the
// person typed such an address, a literal one or `localhost` (a document on
// their network, the built-in demo), never because a name resolves to one
// (the gate's rule for names); and the checked address is pinned for every request of
// the download, so a second DNS answer cannot swap it. Only http and https;
// it follows no redirect (the caller checks each, specDownload.ts).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { AirlockError } from '../util/errors.ts';
import {
  BlockedAddressError,
  checkNameAddresses,
  classifyAddress,
  hostAddresses,
  isLiteralHost,
  systemResolver,
  type PinnedAddress,
  type Resolver,
} from '../util/addressPolicy.ts';

/** Address classes a document is read from when the address given is one of them. */
const TYPED_ONLY = new Set(['private', 'loopback']);

/**
 * The checked address of the host of `given`, the address a person gave a document at. A literal address or
 * `localhost` is theirs as typed; a DNS name follows the gate's rule for an API that does not allow private
 * networks (checkNameAddresses): a name whose addresses are private or loopback is refused, naming the address,
 * and the person gives that address itself when it is meant.
 */
export async function documentAddress(given: URL, resolver: Resolver = systemResolver): Promise<PinnedAddress> {
  const { bare, found } = await hostAddresses(given.hostname, resolver);
  if (found.length === 0) throw new AirlockError('network', `${bare} does not resolve`);
  const classes = found.map((r) => ({ ...r, cls: classifyAddress(r.address) }));
  const refused = classes.find((r) => r.cls !== 'public' && !TYPED_ONLY.has(r.cls));
  if (refused)
    throw new AirlockError(
      'denied',
      `${bare}${refused.address === bare ? '' : ` is ${refused.address}`} (${refused.cls}): ${refused.cls === 'metadata' ? 'a cloud metadata address' : `a ${refused.cls} address`} is never read from`,
      { hint: 'give the document as a file, or at a public or private address' },
    );
  if (isLiteralHost(bare)) return pinnedOf(found[0]!);
  try {
    return checkNameAddresses(bare, found, false);
  } catch (error) {
    if (!(error instanceof BlockedAddressError) || error.address === undefined) throw error;
    if (classes.some((r) => r.cls === 'public'))
      throw new AirlockError('denied', `${bare} resolves to public and private addresses (${error.address}): refused, as a rebinding would be`);
    const there = new URL(given);
    there.hostname = error.address.includes(':') ? `[${error.address}]` : error.address;
    throw new AirlockError(
      'denied',
      `${bare} resolves to ${error.address} (${error.addressClass}): a document is read from a private or loopback address only when that address is the one given`,
      { hint: `if the document is meant to come from ${error.address}, give that address itself: ${there.href}` },
    );
  }
}

function pinnedOf(r: { address: string; family: number }): PinnedAddress {
  return { address: r.address, family: r.family === 6 ? 6 : 4 };
}

/**
 * A fetch for the downloads of one document: the address `given` is checked (documentAddress) on the first
 * request and pinned; every request must be to the same host, over http or https, and no redirect is followed.
 */
export function documentFetch(given: string, options: { resolver?: Resolver } = {}): typeof fetch {
  const givenUrl = new URL(given);
  const host = givenUrl.hostname;
  let pinned: Promise<PinnedAddress> | undefined;
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new AirlockError('denied', `${url.protocol} is not HTTP`);
    if (url.hostname !== host) throw new AirlockError('denied', `${url.hostname} is not the host the document was given at (${host})`);
    const address = await (pinned ??= documentAddress(givenUrl, options.resolver));
    const lookup: LookupFunction = (_host, opts, callback) => {
      if ((opts as { all?: boolean }).all) (callback as unknown as (e: null, a: PinnedAddress[]) => void)(null, [address]);
      else callback(null, address.address, address.family);
    };
    return new Promise<Response>((resolve, reject) => {
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
        url,
        { method: 'GET', headers: Object.fromEntries(new Headers(init.headers)), lookup, ...(init.signal ? { signal: init.signal } : {}) },
        (res: IncomingMessage) => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
          const status = res.statusCode ?? 502;
          const noBody = status === 204 || status === 304;
          resolve(new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream), { status, statusText: res.statusMessage ?? '', headers }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }) as typeof fetch;
}
