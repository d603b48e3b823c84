// The accepted tools of every enabled server as search_docs searches them,
// beside the APIs: each server's tools one searchable source (its index
// built once per acceptance), its cards and lines scrubbed of secrets.
import type { Logger } from '../log/logger.ts';
import type { ApiOperation } from '../openapi/catalogue.ts';
import type { SearchableTools } from '../mcp/searchDocsTool.ts';
import { messageOf } from '../../../contract/values.ts';
import { serverProfile } from '../../../contract/calls.ts';
import { renderToolCard, toolCall, toolLine, toolOf, toolSearchSource } from './toolSearch.ts';
import type { UpstreamServers } from './upstreamServers.ts';

/** The accepted tools of every enabled server, as search_docs searches them (each index built once per acceptance). */
export function searchableTools(upstream: UpstreamServers, logger: Logger, redact: (text: string) => string): SearchableTools[] {
  return upstream.acceptedTools().flatMap(({ name }) => {
    const accepted = upstream.accepted(name);
    if (!accepted || accepted.length === 0) return [];
    let source: ReturnType<typeof toolSearchSource>;
    try {
      source = toolSearchSource(name, accepted);
    } catch (error) {
      // One server's odd schema costs its own tools their place in search, never the others' or the APIs'.
      logger.warn(`MCP server ${name}: its tools cannot be indexed for search_docs: ${messageOf(error)}`);
      return [];
    }
    const toolOfOp = (op: ApiOperation) => toolOf(source, op)!;
    return [
      {
        name: serverProfile(name),
        server: name,
        catalogue: source.catalogue,
        search: source.search,
        toolName: (op) => toolOfOp(op).name,
        call: (op) => toolCall(name, toolOfOp(op).name),
        card: (op, rank) => redact(renderToolCard(name, toolOfOp(op), rank)),
        line: (op) => redact(toolLine(name, toolOfOp(op))),
      },
    ];
  });
}
