// What Airlock's MCP server says of itself in its answer to `initialize`:
// its name, its capabilities, and the protocol version it agrees to. One
// home, read by createMcpServer and by the early answer of a stdio start
// (earlyInitialize.ts), which answers before the MCP SDK is loaded, so no
// SDK or zod here. The protocol versions are the SDK's, copied:
// test/unit/earlyInitialize.test.ts fails when the SDK's change.
import { AIRLOCK_VERSION } from '../util/version.ts';

export const SERVER_INFO = { name: 'airlock', title: 'Airlock', version: AIRLOCK_VERSION } as const;

/** The SDK's LATEST_PROTOCOL_VERSION and SUPPORTED_PROTOCOL_VERSIONS. */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/** The stateless revision (served by the v2 SDK beside the 2025 ones; stdioRevisions.ts, modernHttp.ts). */
export const MODERN_REVISION = '2026-07-28';

/** The version a server answers with: the client's when supported, else the latest (as the SDK's server does). */
export function agreedProtocolVersion(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** The capabilities declared: tools whose list changes, logging, and with execute, task-augmented tool calls. */
export function serverCapabilities(hasExecute: boolean): Record<string, unknown> {
  return {
    tools: { listChanged: true },
    logging: {},
    ...(hasExecute ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
  };
}
