// Other MCP servers' tools in search_docs (issue 20): the tools a person
// accepted for a server, indexed with the same search as API operations —
// each tool's name, description and argument schema as an operation's id,
// summary and request body — so one query finds tools and API operations
// together, their scores comparable (searchAcross). A hit is shown as the
// exact call a script makes, `mcp.<server>.<tool>({ … })`, with its
// arguments and what the tool says it does.
import { buildCatalogue, type ApiOperation, type Catalogue } from '../openapi/catalogue.ts';
import { OperationSearch } from '../search/operationSearch.ts';
import type { PinnedTool } from './toolPins.ts';
import { toolKind, type ToolAnnotations } from './toolPolicy.ts';

/** One server's accepted tools, ready to search. */
export interface ToolSearchSource {
  server: string;
  catalogue: Catalogue;
  search: OperationSearch;
  /** The tool behind each operation (by operation id). */
  tools: Map<string, PinnedTool>;
}

const sources = new WeakMap<readonly PinnedTool[], ToolSearchSource>();

/** The search source of a server's accepted tools (built once per acceptance). */
export function toolSearchSource(server: string, accepted: readonly PinnedTool[]): ToolSearchSource {
  const known = sources.get(accepted);
  if (known && known.server === server) return known;
  const paths: Record<string, unknown> = {};
  const ids: string[] = [];
  accepted.forEach((tool, i) => {
    const text = (tool.description ?? '').trim();
    const first = /^[^\n]*?[.!?](\s|$)/.exec(text)?.[0]?.trim() ?? text.split('\n')[0]!;
    paths[`/${i}`] = {
      post: {
        operationId: `t${i}`,
        summary: `${words(tool.name)}${first ? `: ${first}` : ''}`.slice(0, 300),
        ...(text.length > first.length ? { description: text.slice(0, 4000) } : {}),
        tags: [server],
        requestBody: { content: { 'application/json': { schema: objectSchema(tool.inputSchema) } } },
        responses: { 200: { description: 'the tool result' } },
      },
    };
    ids.push(`t${i}`);
  });
  const catalogue = buildCatalogue({ openapi: '3.1.0', info: { title: `MCP server ${server}`, version: '1' }, paths } as never);
  const tools = new Map(catalogue.operations.map((op) => [op.id, accepted[ids.indexOf(op.id)]!]));
  const source = { server, catalogue, search: new OperationSearch(catalogue), tools };
  sources.set(accepted, source);
  return source;
}

/** A tool name as words: `read_text_file` → `read text file`, `getSum` → `get Sum`. */
function words(name: string): string {
  return name.replace(/[_\-.]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');
}

function objectSchema(schema: unknown): object {
  return schema && typeof schema === 'object' ? (schema as object) : { type: 'object' };
}

/** How a script writes a call of this tool: `mcp.fs.write_file`, or `mcp.everything['get-sum']`. */
export function toolCall(server: string, tool: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(tool) ? `mcp.${server}.${tool}` : `mcp.${server}[${JSON.stringify(tool)}]`;
}

/** What the tool says of itself, and what that means for a call (a person's policy may say otherwise). */
const KIND = {
  'read-only': 'says it only reads',
  writes: 'says it changes data: a call may wait for a person',
  'may-destroy': 'may destroy data: a call may wait for a person',
};

/** A hit as search_docs shows it: the exact call with its arguments, what the tool says it does, and its description. */
export function renderToolCard(server: string, tool: PinnedTool, rank: number): string {
  const schema = (tool.inputSchema ?? {}) as { properties?: Record<string, { type?: unknown; description?: string }>; required?: string[] };
  const props = Object.entries(schema.properties && typeof schema.properties === 'object' ? schema.properties : {});
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const call = toolCall(server, tool.name);
  const args = props.map(([name]) => `${/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name)}: …`).join(', ');
  const lines = [
    `## ${rank + 1}. ${call} — a tool of MCP server ${server} (${KIND[toolKind(tool.annotations as ToolAnnotations | undefined)]})`,
    '',
    `    await ${call}({ ${args} })  // → { data, error, status }`,
  ];
  const description = typeof tool.description === 'string' ? tool.description : '';
  if (description) lines.push('', (description.length > 600 ? `${description.slice(0, 600)}…` : description).trim());
  if (props.length > 0) {
    lines.push('', 'Arguments:');
    for (const [name, p] of props.slice(0, 15)) {
      const type = typeof p?.type === 'string' ? p.type : Array.isArray(p?.type) ? p.type.join('|') : 'any';
      const about = typeof p?.description === 'string' ? p.description.split('\n')[0]!.slice(0, 160) : '';
      lines.push(`- ${name} (${type}${required.has(name) ? ', required' : ''})${about ? `: ${about}` : ''}`);
    }
    if (props.length > 15) lines.push(`- … and ${props.length - 15} more`);
  }
  return lines.join('\n') + '\n';
}

/** A hit in the "also relevant" list: one line. */
export function toolLine(server: string, tool: PinnedTool): string {
  const first = (typeof tool.description === 'string' ? tool.description : '').split('\n')[0]!.slice(0, 90);
  return `- ${toolCall(server, tool.name)} — a tool of MCP server ${server}${first ? ` — ${first}` : ''}`;
}

/** The operation behind a hit, back to its tool. */
export function toolOf(source: ToolSearchSource, op: ApiOperation): PinnedTool | undefined {
  return source.tools.get(op.id);
}
