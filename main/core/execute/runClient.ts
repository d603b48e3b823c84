// The client one run gets, for the APIs its session may reach: the manifest
// the sandbox builds its globals from, and the gate its calls go through.
// One API: the client is `api` (and the API's name and alias), as it always
// was. Several: each API is a global of its own name (`github.repos.get`,
// `openagenda.events.list`; an alias too when no other API has that name).
// Either way every operation id the sandbox sees is qualified with its API
// (`github:repos.get`), and the run's gate sends each call to its own API's
// gate — whose key goes only to that API's origin. A call naming an API
// outside the run's scope reaches no API's gate with its name stripped: the
// first API's gate refuses it as an unknown operation, and audits that.
import type { ClientManifest, ClientRoot, ClientShape } from '../sandbox/engine.ts';
import type { EgressGate } from '../egress/egressGate.ts';
import { joinRedactors, type Redactor } from '../log/redactor.ts';
import { TOOL_OPERATION_PREFIX, clientGlobals, clientShape } from '../sandbox/guestClient.ts';
import type { ApiCallResult } from '../sandbox/engine.ts';
import type { RunContext } from '../gate/runContext.ts';

/** A call to another MCP server's tool, as the run's gate hands it on. */
export interface RunToolCall {
  server: string;
  tool: string;
  args: unknown;
}

/** The tools of other MCP servers a run may call (`mcp.<server>.<tool>(args)`), and the gate those calls go through. */
export interface RunTools {
  servers: readonly { name: string; tools: readonly string[] }[];
  /** Servers added and on whose tools no person has accepted yet: until one is, `mcp` says so. */
  awaiting?: readonly string[];
  call(call: RunToolCall, run: RunContext): Promise<ApiCallResult>;
  /** Knows the servers' secrets (as they were read): the run's output is scrubbed of them too. */
  redactor(): Promise<Redactor>;
}

/** The operation id of a server's tool: `mcp@<server>:<tool>` (no API's name holds `@`). */
export function toolOperationId(server: string, tool: string): string {
  return `${TOOL_OPERATION_PREFIX}${server}${SEPARATOR}${tool}`;
}

/** The global a run reaches other MCP servers' tools under. */
export const TOOLS_GLOBAL = 'mcp';

/** One API a run may call. */
export interface RunApi {
  /** The identifier it is reached by (`github`). */
  id: string;
  /** Its client's tree, prepared once (the run builds what its code touches). */
  shape: ClientShape;
  gate: EgressGate;
  /** Globals bound to its client when it is the run's only API: `api`, its name, its alias. */
  clientNames: string[];
  alias?: string;
}

/** An API in a run's reach that it cannot call (still loading, or failed to load): its names answer every call with this error. */
export interface UnavailableApi {
  id: string;
  alias?: string;
  /** Globals bound to it when it is the run's only API. */
  clientNames: string[];
  /** `airlock_api_loading` or `airlock_api_failed`. */
  code: string;
  message: string;
}

export interface RunClient {
  manifest: ClientManifest;
  /** Routes each call to its API's gate. */
  gate: Pick<EgressGate, 'call' | 'redactor'>;
}

const SEPARATOR = ':';

/** `github:repos.get` for operation `repos.get` of API `github`. */
export function qualifiedOperationId(apiId: string, operationId: string): string {
  return `${apiId}${SEPARATOR}${operationId}`;
}

/**
 * `defaultApi`: the API a session began with when it reached only that one. Its scripts were told the client is
 * `api`; when more APIs come into reach later, `api` still names that one (beside every API's own name).
 * What this costs does not depend on how many operations the APIs have: each is a root of the client, by its
 * prepared shape.
 */
export function runClient(
  apis: readonly RunApi[],
  options: { defaultApi?: string; tools?: RunTools; unavailable?: readonly UnavailableApi[] } = {},
): RunClient {
  const tools = options.tools && options.tools.servers.some((s) => s.tools.length > 0) ? options.tools : undefined;
  const awaiting = !tools && options.tools?.awaiting?.length ? options.tools.awaiting : undefined;
  const unavailable = options.unavailable ?? [];
  if (apis.length + unavailable.length === 0 && !tools && !awaiting) throw new Error('a run needs at least one API');
  const byId = new Map(apis.map((a) => [a.id, a]));
  const ids = new Set([...byId.keys(), ...unavailable.map((p) => p.id)]);
  const roots: ClientRoot[] = [];
  const bound = new Set<string>();
  const root = (shape: ClientShape, idPrefix: string, names: string[], error?: { code: string; message: string }) => {
    const globals = clientGlobals(names).filter((n) => !bound.has(n));
    for (const n of globals) bound.add(n);
    if (globals.length > 0) roots.push({ shape, idPrefix, globals, ...(error ? { unavailable: error } : {}) });
  };
  // The names of each API (or of one it cannot call): as `api` when it is the run's only one, else under its own name.
  const namesOf = (api: { id: string; alias?: string; clientNames: string[] }, only: boolean) =>
    only
      ? api.clientNames
      : [
          api.id,
          // An alias is a second name only where it takes no other API's name.
          ...(api.alias && api.alias !== 'api' && !ids.has(api.alias) ? [api.alias] : []),
          ...(api.id === options.defaultApi ? ['api'] : []),
        ];
  const only = apis.length + unavailable.length === 1;
  for (const api of apis) root(api.shape, qualifiedOperationId(api.id, ''), namesOf(api, only));
  for (const api of unavailable) root(NO_SHAPE, qualifiedOperationId(api.id, ''), namesOf(api, only), { code: api.code, message: api.message });
  // Other servers' tools under `mcp`, unless an API already answers to that name (it keeps it).
  const toolsBound = tools !== undefined && !bound.has(TOOLS_GLOBAL) && !(only && rootTakes(apis, TOOLS_GLOBAL));
  if (tools && toolsBound) root(toolsShape(tools.servers), '', [TOOLS_GLOBAL]);
  // No server's tools accepted yet: `mcp` says why, and what a person does about it.
  else if (awaiting && !bound.has(TOOLS_GLOBAL) && !(only && rootTakes(apis, TOOLS_GLOBAL)))
    root(NO_SHAPE, '', [TOOLS_GLOBAL], {
      code: 'airlock_server_not_accepted',
      message: `no tool of another MCP server is accepted yet (waiting for a person's review: ${awaiting.join(', ')}): a person reviews and accepts them (\`airlock servers accept ${awaiting[0]}\`, or the Servers screen)`,
    });
  const manifest: ClientManifest = { roots };
  const first = apis[0];
  return {
    manifest,
    gate: {
      call(request, run) {
        const id = typeof request?.operationId === 'string' ? request.operationId : '';
        if (tools && toolsBound && id.startsWith(TOOL_OPERATION_PREFIX)) {
          const rest = id.slice(TOOL_OPERATION_PREFIX.length);
          const at = rest.indexOf(SEPARATOR);
          return tools.call({ server: rest.slice(0, at), tool: rest.slice(at + 1), args: request.body }, run);
        }
        const at = id.indexOf(SEPARATOR);
        const api = at > 0 ? byId.get(id.slice(0, at)) : undefined;
        if (!api)
          return first
            ? first.gate.call(request, run)
            : Promise.resolve({ data: null, error: { code: 'airlock_unknown_operation', message: `unknown operation '${id}'` }, status: 0 });
        return api.gate.call({ ...request, operationId: id.slice(at + 1) }, run);
      },
      async redactor(): Promise<Redactor> {
        // A key that cannot be read (the keychain is down) was never sent: its API's gate refuses every call then.
        const each = await Promise.all([
          ...apis.map((a) => a.gate.redactor().catch(() => undefined)),
          ...(tools ? [tools.redactor().catch(() => undefined)] : []),
        ]);
        return joinRedactors(each.filter((r): r is Redactor => r !== undefined));
      },
    },
  };
}

/** The other servers' tools as a client tree: `mcp.<server>.<tool>`, each method its tool's operation id (kept while the list is the same). */
function toolsShape(servers: RunTools['servers']): ClientShape {
  const tree: Record<string, Record<string, string>> = {};
  for (const server of servers) {
    if (server.tools.length === 0) continue;
    const tools: Record<string, string> = (tree[server.name] ??= {});
    for (const tool of server.tools) if (!Object.hasOwn(tools, tool)) tools[tool] = toolOperationId(server.name, tool);
  }
  const json = JSON.stringify(tree);
  if (lastTools?.json !== json) lastTools = clientShape(json);
  return lastTools;
}

let lastTools: ClientShape | undefined;

/** The shape of an API a run cannot call: nothing is built from it (its names answer why). */
const NO_SHAPE: ClientShape = { key: 'none', json: '{}', top: [] };

/** Whether a run's only API has a top-level group of this name (its client is bound whole, as `api`). */
function rootTakes(apis: readonly RunApi[], name: string): boolean {
  return apis.length === 1 && apis[0]!.shape.top.includes(name);
}
