// The checks every loopback request passes before any handler runs:
// Host and Origin must name a loopback address (DNS-rebinding and
// cross-site defence, 403 otherwise), and protected paths need the right
// bearer token (401 with WWW-Authenticate otherwise).
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { tokensEqual } from './tokenFile.ts';

export function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h.startsWith('::ffff:')) return isLoopbackAddress(h.slice(7));
  return false;
}

/** Splits `host[:port]`, `[v6]:port`. */
export function splitHostPort(value: string): { host: string; port?: string } {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  if (v6) return { host: v6[1]!, ...(v6[2] ? { port: v6[2] } : {}) };
  const m = /^([^:]+)(?::(\d+))?$/.exec(value);
  if (m) return { host: m[1]!, ...(m[2] ? { port: m[2] } : {}) };
  return { host: value };
}

export interface GuardOptions {
  /** Extra host names accepted besides loopback (only with --dangerously-allow-non-loopback). */
  extraHosts?: string[];
  /** Accept any Host (bound to 0.0.0.0 / :: with the dangerous flag). */
  anyHost?: boolean;
}

export type GuardVerdict = { ok: true } | { ok: false; status: 401 | 403; reason: string };

export function checkHostAndOrigin(req: IncomingMessage, options: GuardOptions = {}): GuardVerdict {
  const hostHeader = req.headers.host;
  if (!hostHeader) return { ok: false, status: 403, reason: 'missing Host header' };
  const { host } = splitHostPort(hostHeader);
  const allowed = (h: string) => isLoopbackAddress(h) || options.anyHost === true || (options.extraHosts ?? []).includes(h.toLowerCase());
  if (!allowed(host)) return { ok: false, status: 403, reason: `Host '${hostHeader}' is not a loopback address` };
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return { ok: false, status: 403, reason: `Origin '${origin}' is not a URL` };
    }
    if (
      origin === 'null' ||
      !/^https?:$/.test(url.protocol) ||
      !(isLoopbackAddress(url.hostname) || (options.extraHosts ?? []).includes(url.hostname.toLowerCase()))
    ) {
      return { ok: false, status: 403, reason: `Origin '${origin}' is not a loopback origin` };
    }
  }
  return { ok: true };
}

/** The bearer token of a request's Authorization header, or undefined. */
export function bearerOf(req: { headers: { authorization?: string | undefined } }): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
}

export function checkBearer(req: IncomingMessage, expected: string): GuardVerdict {
  const header = req.headers.authorization;
  if (!header) return { ok: false, status: 401, reason: 'missing bearer token' };
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m || !tokensEqual(m[1]!, expected)) return { ok: false, status: 401, reason: 'invalid bearer token' };
  return { ok: true };
}
