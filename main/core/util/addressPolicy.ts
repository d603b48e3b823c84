// Which addresses the gate may connect to. A DNS name is resolved, every
// address it resolves to is checked (private, loopback, link-local, CGNAT,
// multicast, unspecified and cloud metadata addresses are refused unless the
// profile allows private networks; metadata is refused always), and the
// checked address is pinned for the connection, so a second lookup cannot
// swap in another. An origin configured as a literal IP or `localhost` (a
// local dev API, the built-in demo) is used as configured.
import { isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';

export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'reserved';

const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16', 'fd00:ec2::254', '192.0.0.192']);

function v4(addr: string): number[] | undefined {
  const parts = addr.split('.').map(Number);
  return parts.length === 4 && parts.every((n) => Number.isInteger(n) && n >= 0 && n <= 255) ? parts : undefined;
}

/** Expands an IPv6 address to 8 groups of 16 bits. */
function v6Groups(addr: string): number[] | undefined {
  let a = addr
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (tail) {
    const b = v4(tail[1]!);
    if (!b) return undefined;
    a = a.slice(0, -tail[1]!.length) + `${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const halves = a.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const groups = [...head, ...new Array(halves.length === 2 ? missing : 0).fill('0'), ...rest].map((g) => Number.parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '');
  if (METADATA.has(bare.toLowerCase())) return 'metadata';
  const b = v4(bare);
  if (b) {
    const [x, y] = b as [number, number, number, number];
    if (x === 0) return 'unspecified';
    if (x === 127) return 'loopback';
    if (x === 10 || (x === 172 && y >= 16 && y <= 31) || (x === 192 && y === 168)) return 'private';
    if (x === 169 && y === 254) return 'link-local';
    if (x === 100 && y >= 64 && y <= 127) return 'private'; // CGNAT
    if (x >= 224 && x <= 239) return 'multicast';
    if (x >= 240 || (x === 192 && y === 0 && b[2] === 0) || (x === 198 && (y === 18 || y === 19))) return 'reserved';
    return 'public';
  }
  const g = v6Groups(bare);
  if (!g) return 'reserved';
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible / NAT64 forms carry an IPv4 address.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    return classifyAddress(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`);
  }
  if (g[0] === 0x64 && g[1] === 0xff9b) return classifyAddress(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`);
  if ((g[0]! & 0xfe00) === 0xfc00) return 'private'; // ULA fc00::/7
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast';
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'reserved';
  return 'public';
}

export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export class BlockedAddressError extends Error {
  readonly addressClass: AddressClass;
  /** The address refused, where known. */
  readonly address: string | undefined;
  constructor(message: string, addressClass: AddressClass, address?: string) {
    super(message);
    this.addressClass = addressClass;
    this.address = address;
  }
}

export function isLiteralHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return isIP(h) !== 0 || h.toLowerCase() === 'localhost';
}

/** A host's addresses, brackets dropped: a literal address as itself, `localhost` as 127.0.0.1, a name through DNS. */
export async function hostAddresses(
  hostname: string,
  resolver: Resolver = systemResolver,
): Promise<{ bare: string; found: { address: string; family: number }[] }> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const found = isIP(bare)
    ? [{ address: bare, family: isIP(bare) }]
    : bare.toLowerCase() === 'localhost'
      ? [{ address: '127.0.0.1', family: 4 }]
      : await resolver(bare);
  return { bare, found };
}

/**
 * The address to connect to for `hostname`. Literal hosts are used as
 * configured; DNS names must resolve to allowed addresses only.
 */
export async function resolveAllowedAddress(hostname: string, options: { allowPrivateNetwork: boolean; resolver?: Resolver }): Promise<PinnedAddress> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isLiteralHost(bare)) {
    if (bare.toLowerCase() === 'localhost') return { address: '127.0.0.1', family: 4 };
    const cls = classifyAddress(bare);
    if (cls === 'metadata') throw new BlockedAddressError(`${bare} is a cloud metadata address`, cls, bare);
    return { address: bare, family: isIP(bare) as 4 | 6 };
  }
  const resolved = await (options.resolver ?? systemResolver)(bare);
  if (resolved.length === 0) throw new Error(`${bare} does not resolve`);
  return checkNameAddresses(bare, resolved, options.allowPrivateNetwork);
}

/**
 * The rule for a DNS name (not a literal address or `localhost`, which the person typed as such): every address
 * it resolves to is public, or, where private networks are allowed, any but metadata, unspecified and multicast.
 * The first address refused is thrown (BlockedAddressError, naming it); else the first address, to pin.
 */
export function checkNameAddresses(name: string, resolved: { address: string; family: number }[], allowPrivateNetwork: boolean): PinnedAddress {
  for (const r of resolved) {
    const cls = classifyAddress(r.address);
    if (cls === 'public') continue;
    if (cls === 'metadata' || !allowPrivateNetwork || cls === 'unspecified' || cls === 'multicast') {
      throw new BlockedAddressError(`${name} resolves to ${r.address} (${cls}); the gate only connects to public addresses`, cls, r.address);
    }
  }
  const first = resolved[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** How long a checked address is kept for its host name. */
export const PIN_TTL_MS = 30_000;

/** Pins per host name: each resolved and checked (resolveAllowedAddress) at most once every PIN_TTL_MS. */
export function addressPins(options: { allowPrivateNetwork(): boolean; resolver?: Resolver }): (hostname: string) => Promise<PinnedAddress> {
  const pins = new Map<string, { pinned: PinnedAddress; until: number }>();
  return async (hostname) => {
    const cached = pins.get(hostname);
    if (cached && cached.until > Date.now()) return cached.pinned;
    const pinned = await resolveAllowedAddress(hostname, {
      allowPrivateNetwork: options.allowPrivateNetwork(),
      ...(options.resolver ? { resolver: options.resolver } : {}),
    });
    pins.set(hostname, { pinned, until: Date.now() + PIN_TTL_MS });
    return pinned;
  };
}
