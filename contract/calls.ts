// What a call through Airlock's gate is: an operation of an API sent over
// HTTP, a tool of another MCP server, or a client's request to switch one of
// those servers on or off. One word per kind, shared by the approval requests,
// the audit records, the grants, the CLI and the screens. No HTTP method is
// invented for what is not HTTP: only an API call has one.
//
// Records written before the kinds existed said TOOL or TOGGLE in their
// method; `callKindOf` reads them as the kinds they were.
import { z } from 'zod';

export const CALL_KINDS = ['api-call', 'tool-call', 'server-switch'] as const;
export const callKindSchema = z.enum(CALL_KINDS);
export type CallKind = z.infer<typeof callKindSchema>;

/** How each kind is named to a person (filters, headings, the CLI). */
export const CALL_KIND_LABEL: Record<CallKind, string> = {
  'api-call': 'API call',
  'tool-call': 'MCP tool call',
  'server-switch': 'MCP server switch',
};

/** The methods records used for tool calls and server switches before the kinds existed. */
export const LEGACY_METHOD_KIND: Readonly<Record<string, CallKind>> = { TOOL: 'tool-call', TOGGLE: 'server-switch' };

/** A call's kind from a record, grant or request of any age: its own word, else what its method said. */
export function callKindOf(r: { callKind?: string | undefined; method?: string | undefined }): CallKind {
  if (r.callKind && (CALL_KINDS as readonly string[]).includes(r.callKind)) return r.callKind as CallKind;
  return LEGACY_METHOD_KIND[String(r.method ?? '').toUpperCase()] ?? 'api-call';
}

/** The HTTP method of an API call; none for any other kind (older records' TOOL and TOGGLE included). */
export function httpMethodOf(r: { callKind?: string | undefined; method?: string | undefined }): string | undefined {
  return callKindOf(r) === 'api-call' && r.method ? r.method : undefined;
}

/** How a tool of a server is addressed in records and prompts: `mcp://<server>/<tool>`. */
export function toolAddress(server: string, tool: string): string {
  return `mcp://${server}/${encodeURIComponent(tool)}`;
}

/** The profile a server's calls and grants are kept under, beside the APIs': `mcp:<server>`. */
export function serverProfile(server: string): string {
  return `mcp:${server}`;
}

/** The server a `mcp:<server>` profile names, or undefined for an API's profile. */
export function serverOfProfile(profile: string | undefined): string | undefined {
  return profile?.startsWith('mcp:') ? profile.slice(4) : undefined;
}

/**
 * A call's target in one line, for lists and logs:
 * `POST https://api.example.com/events` (an API call, by `url` or `pathTemplate`),
 * `tool write_file of MCP server fs`, `switch MCP server fs`.
 */
export function callLine(r: {
  callKind?: string | undefined;
  method?: string | undefined;
  url?: string | undefined;
  pathTemplate?: string | undefined;
  profile?: string | undefined;
  operationId?: string | undefined;
  server?: string | undefined;
}): string {
  const kind = callKindOf(r);
  const server = r.server ?? serverOfProfile(r.profile) ?? serverOfUrl(r.url);
  if (kind === 'tool-call') return `tool ${r.operationId ?? '?'} of MCP server ${server ?? '?'}`;
  if (kind === 'server-switch') return `switch MCP server ${server ?? '?'}`;
  return `${r.method ?? ''} ${r.url ?? r.pathTemplate ?? ''}`.trim();
}

/** The server in an `mcp://<server>/…` or `airlock://servers/<server>` address. */
function serverOfUrl(url: string | undefined): string | undefined {
  const match = /^(?:mcp:\/\/|airlock:\/\/servers\/)([^/]+)/.exec(url ?? '');
  return match?.[1];
}
