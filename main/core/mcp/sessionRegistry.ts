// The MCP clients connected to this companion: one entry per HTTP session or
// stdio process, keyed by the caller key grants and limits are bound to, with
// the name and version the client declared, when it connected, when it was
// last seen and how many calls it has in flight. When a session ends, the
// listeners (its session grants) hear of it.
import type { McpSession } from '../../../contract/status.ts';
import type { CallerInfo } from '../approvals/types.ts';

/** The caller key of an HTTP session (grants, limits and the registry are keyed by it). */
export function httpSessionKey(sessionId: string | undefined): string {
  return `http:${sessionId ?? 'nosession'}`;
}

export class SessionRegistry {
  private readonly sessions = new Map<string, McpSession>();
  private readonly closeListeners = new Set<(key: string, session: McpSession) => void>();
  private readonly changeListeners = new Set<() => void>();
  private readonly now: () => Date;

  constructor(now: () => Date = () => new Date()) {
    this.now = now;
  }

  open(caller: CallerInfo): void {
    if (caller.transport === 'internal') return;
    const at = this.now().toISOString();
    const existing = this.sessions.get(caller.key);
    this.sessions.set(caller.key, {
      key: caller.key,
      transport: caller.transport,
      ...(caller.sessionId ? { sessionId: caller.sessionId } : {}),
      ...(caller.clientName ? { clientName: caller.clientName } : {}),
      ...(caller.clientVersion ? { clientVersion: caller.clientVersion } : {}),
      ...(caller.protocolVersion ? { protocolVersion: caller.protocolVersion } : {}),
      connectedAt: existing?.connectedAt ?? at,
      lastSeenAt: at,
      inFlight: existing?.inFlight ?? 0,
    });
    this.changed();
  }

  begin(caller: CallerInfo): void {
    if (!this.sessions.has(caller.key)) this.open(caller);
    const s = this.sessions.get(caller.key);
    if (!s) return;
    // A connection opened before its client said who it is (stdio of 2026-07-28 names it in each request): labelled now.
    const unlabelled = !s.clientName && caller.clientName;
    if (unlabelled) s.clientName = caller.clientName;
    if (!s.clientVersion && caller.clientVersion) s.clientVersion = caller.clientVersion;
    s.inFlight++;
    s.lastSeenAt = this.now().toISOString();
    if (unlabelled) this.changed();
  }

  end(key: string): void {
    const s = this.sessions.get(key);
    if (!s) return;
    s.inFlight = Math.max(0, s.inFlight - 1);
    s.lastSeenAt = this.now().toISOString();
  }

  /** The client was heard from (any request, not only a tool call): when it was last seen. */
  seen(key: string): void {
    const s = this.sessions.get(key);
    if (s) s.lastSeenAt = this.now().toISOString();
  }

  /**
   * Closes the entries of callers with no session of their own (a 2026-07-28 request's credential and scope:
   * `isStateless(key)`) that have nothing in flight and were last seen before `before`: a client that stopped calling is
   * not listed for ever, and URLs naming ever new scopes do not grow the list. Returns how many were closed.
   */
  closeIdle(isStateless: (key: string) => boolean, before: Date): number {
    let closed = 0;
    for (const s of [...this.sessions.values()]) {
      if (!isStateless(s.key) || s.inFlight > 0 || new Date(s.lastSeenAt) >= before) continue;
      this.close(s.key);
      closed++;
    }
    return closed;
  }

  close(key: string): void {
    const session = this.sessions.get(key);
    if (!session || !this.sessions.delete(key)) return;
    for (const l of this.closeListeners) l(key, session);
    this.changed();
  }

  list(): McpSession[] {
    return [...this.sessions.values()].map((s) => ({ ...s }));
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Told of each session that ends: its key, and the session as it was (when it connected, its revision). */
  onClose(listener: (key: string, session: McpSession) => void): () => void {
    this.closeListeners.add(listener);
    return () => void this.closeListeners.delete(listener);
  }

  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => void this.changeListeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.changeListeners) l();
  }
}
