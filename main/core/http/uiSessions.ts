// Who may use the web UI. A login link carries a one-time token in its URL
// fragment (never sent in a request line, never logged); the page trades it
// once for a session cookie (HttpOnly, SameSite=Strict, path /ui) within two
// minutes. The session is a separate power from the MCP token: neither opens
// the other's door. Sessions live in memory: a restart means a new link.
import { randomBytes } from 'node:crypto';
import { tokensEqual } from './tokenFile.ts';

export const UI_COOKIE = 'airlock_ui';
const LOGIN_TTL_MS = 2 * 60_000;
const SESSION_IDLE_MS = 12 * 60 * 60_000;
const MAX_SESSIONS = 32;

export class UiSessions {
  private readonly logins = new Map<string, number>(); // token → expiry
  private readonly sessions = new Map<string, number>(); // id → last seen
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** A one-time login token, valid for two minutes. */
  issueLoginToken(): { token: string; expiresAt: number } {
    this.sweep();
    const token = randomBytes(32).toString('hex');
    const expiresAt = this.now() + LOGIN_TTL_MS;
    this.logins.set(token, expiresAt);
    return { token, expiresAt };
  }

  /** Trades a login token for a session id; undefined when the token is unknown, used or expired. */
  exchange(token: string): string | undefined {
    this.sweep();
    for (const [candidate, expiresAt] of this.logins) {
      if (tokensEqual(token, candidate)) {
        this.logins.delete(candidate);
        if (expiresAt < this.now()) return undefined;
        if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
        const id = randomBytes(32).toString('hex');
        this.sessions.set(id, this.now());
        return id;
      }
    }
    return undefined;
  }

  /** Whether the request's cookie holds a live session (and notes its use). */
  check(cookieHeader: string | undefined): boolean {
    const id = readCookie(cookieHeader, UI_COOKIE);
    if (!id) return false;
    for (const [candidate, seen] of this.sessions) {
      if (tokensEqual(id, candidate)) {
        if (this.now() - seen > SESSION_IDLE_MS) {
          this.sessions.delete(candidate);
          return false;
        }
        this.sessions.set(candidate, this.now());
        return true;
      }
    }
    return false;
  }

  end(cookieHeader: string | undefined): void {
    const id = readCookie(cookieHeader, UI_COOKIE);
    if (id) for (const candidate of this.sessions.keys()) if (tokensEqual(id, candidate)) this.sessions.delete(candidate);
  }

  private sweep(): void {
    const t = this.now();
    for (const [token, expiresAt] of this.logins) if (expiresAt < t) this.logins.delete(token);
  }
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

export function sessionCookie(id: string): string {
  return `${UI_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/ui; Max-Age=${SESSION_IDLE_MS / 1000}`;
}
