// A 2026-07-28 tools/list answered from what the SDK last answered, until
// the tools change. The 2025 revision answers a plain tools/list from a
// reply prepared once (createMcpServer.ts preparedAnswer); the v2 SDK checks
// the request's envelope and frames its result again for each one (~0.2 ms
// here). The first plain request of a connection, any request that is not
// plain (a cursor, an envelope the SDK might refuse), and every request while
// an API in reach is being opened go to the SDK; a plain one after that is
// answered with the SDK's own result under the request's id.

import { isPlainEnvelope } from './modernDirectCall.ts';

/**
 * A tools/list of 2026-07-28 whose answer may be one kept: a JSON-RPC request with an id, no cursor, and the plain
 * envelope the SDK accepts (isPlainEnvelope). Its transport's own rules (HTTP headers) are the caller's to check.
 */
export function isPlainModernList(body: unknown, revision: string): body is { id: string | number } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const message = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { cursor?: unknown; _meta?: unknown } };
  if (message.jsonrpc !== '2.0' || message.method !== 'tools/list' || message.params?.cursor !== undefined) return false;
  if (typeof message.id !== 'string' && typeof message.id !== 'number') return false;
  return isPlainEnvelope(message.params?._meta, revision);
}

/** One connection's kept tools/list answer. */
export interface KeptModernList {
  /** The line answering `raw` from the kept result; undefined: the SDK answers it (and its answer may be kept). */
  answer(raw: unknown): Buffer | undefined;
  /** Sees each message the connection sends: the SDK's answer to a plain tools/list is kept. */
  sent(message: unknown): void;
  /** The tools changed: nothing kept is given again. */
  forget(): void;
}

/** `opening`: whether an API in reach is being opened (a tools/list then waits for it, in the SDK's handler). */
export function keptModernList(revision: string, opening: () => boolean): KeptModernList {
  let result: string | undefined;
  // The ids of plain lists handed to the SDK since the last change: their answers may be kept.
  const asked = new Set<string | number>();
  return {
    answer(raw) {
      if (!isPlainModernList(raw, revision)) return undefined;
      if (result !== undefined && !opening()) {
        // In the order the SDK writes its answers, so the joined pipe's shim passes the line on unparsed.
        return Buffer.from(`{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(raw.id)}}`);
      }
      if (asked.size < 16) asked.add(raw.id);
      return undefined;
    },
    sent(message) {
      if (asked.size === 0 || !message || typeof message !== 'object') return;
      const answer = message as { id?: unknown; result?: unknown };
      if ((typeof answer.id !== 'string' && typeof answer.id !== 'number') || !asked.delete(answer.id)) return;
      // Only a result, never an error, and only one got while nothing in reach was being opened.
      if (answer.result !== undefined && !opening()) result = JSON.stringify(answer.result);
    },
    forget() {
      result = undefined;
      asked.clear();
    },
  };
}
