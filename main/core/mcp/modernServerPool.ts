// The 2026-07-28 revision's servers over HTTP, kept between requests. The v2
// SDK's handler asks for a server per request and lets it go when the
// exchange ends; building one (the SDK's server, its tools, their handlers)
// was ~0.35 ms of companion CPU a request here — what a 2025 session pays
// once. A server that has answered is idle again (its transport gone) and is
// handed to the next request of the same caller, for the same tool, until
// what the tools describe changes (then every idle server is dropped, and one
// still answering is not kept when it ends).
//
// A server holds nothing of its request once the exchange ends: the client's
// declared name and capabilities are read from each request's envelope, and
// a run's state lives in the companion (runs, tasks), not in the server.

/** What a pooled server must be: the v2 SDK's McpServer, whose low-level server says when its exchange ends. */
export interface PoolableServer {
  server: { onclose?: (() => void) | undefined; transport?: unknown };
}

/** What a caller's server for one tool is kept under: its credential and scope (`key`), its token's name, the tool. */
export function callerToolKey(caller: { key: string; token?: { name: string } | undefined }, tool: string | undefined): string {
  return JSON.stringify([caller.key, caller.token?.name ?? '', tool ?? '']);
}

/** How many idle servers each caller-and-tool keeps: enough for the calls a client has in flight at once. */
const IDLE_PER_KEY = 8;
/** How many callers-and-tools are kept at once (each scope and credential is a caller of its own). */
const MAX_KEYS = 64;

export class ModernServerPool<S extends PoolableServer> {
  private readonly idle = new Map<string, S[]>();
  private generation = 0;

  /** An idle server of this caller-and-tool, if one is kept. */
  take(key: string): S | undefined {
    const kept = this.idle.get(key);
    const server = kept?.pop();
    if (kept && kept.length === 0) this.idle.delete(key);
    // One still connected (the SDK never let it go) is not handed out.
    return server && server.server.transport === undefined ? server : undefined;
  }

  /** Taken before a server is built: what `adopt` is told, so a server built across a change is never kept. */
  ticket(): number {
    return this.generation;
  }

  /**
   * A server built for `key` (begun when `ticket` was taken): kept for the next request once its exchange ends, if
   * nothing the tools describe changed since it was begun.
   */
  adopt(key: string, server: S, born: number): S {
    const before = server.server.onclose;
    server.server.onclose = () => {
      before?.();
      if (born === this.generation) this.giveBack(key, server);
    };
    return server;
  }

  /** What the tools describe changed: no server built before is handed out again. */
  clear(): void {
    this.generation++;
    this.idle.clear();
  }

  /** How many servers are idle (for tests). */
  get size(): number {
    let n = 0;
    for (const kept of this.idle.values()) n += kept.length;
    return n;
  }

  private giveBack(key: string, server: S): void {
    let kept = this.idle.get(key);
    if (!kept) {
      if (this.idle.size >= MAX_KEYS) this.idle.delete(this.idle.keys().next().value!);
      this.idle.set(key, (kept = []));
    }
    if (kept.length < IDLE_PER_KEY && !kept.includes(server)) kept.push(server);
  }
}
