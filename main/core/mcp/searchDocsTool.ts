// The search_docs MCP tool: find the operations that do what the model
// wants, rendered as exact calls for `execute`. Read-only, closed-world: it
// reads the loaded OpenAPI document and nothing else.
import { apiName } from './apiName.ts';
import { z } from 'zod';
import type { AuditedTools } from './auditedTools.ts';
import type { ApiOperation, Catalogue } from '../openapi/catalogue.ts';
import type { OperationSearch } from '../search/operationSearch.ts';
import { callOf, renderScopedResults, renderSearchResults, type PlacedHit } from '../search/renderResults.ts';
import { relatedOperations } from '../search/relatedOperations.ts';
import { outlineOf, renderGroup, renderOutline } from '../search/outline.ts';
import { searchAcross } from '../search/searchAcross.ts';
import { toolAddress } from '../../../contract/calls.ts';

export const searchDocsInput = {
  query: z
    .string()
    .trim()
    .min(1, 'query cannot be empty')
    .max(500, 'query is longer than 500 characters')
    .optional()
    .describe('What you want to do, in plain words (English or French): "upcoming events in Paris", "delete an event", "how many events per city"'),
  related: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .optional()
    .describe(
      "Instead of a query, an operationId: the operations one usually needs with it (the list that yields the ids it takes, the same resource's other verbs, those that take what it returns)",
    ),
  limit: z.number().int().min(1).max(20).optional().describe('How many operations to return (default 8; the best ones come with full details)'),
};

export const searchDocsOutput = {
  results: z
    .array(
      z.object({
        api: z.string().describe('The API the operation belongs to (its name)'),
        /** An operation of an API, or a tool of another MCP server (which has no HTTP method). */
        kind: z.enum(['api-call', 'tool-call']).describe('api-call: an operation of an API; tool-call: a tool of another MCP server'),
        operationId: z.string(),
        method: z.string().optional().describe("The operation's HTTP method (a tool has none)"),
        path: z.string().describe("The operation's path; a tool's mcp://<server>/<tool>"),
        call: z.string().describe('The exact client method to use in execute, e.g. api.events.list, or github.repos.get when several APIs are in reach'),
        score: z.number(),
      }),
    )
    .describe('Matching operations, best first'),
};

/** One API a session may search: its name, the identifier its calls are written with, its catalogue and index. */
export interface SearchableApi {
  name: string;
  id: string;
  catalogue: Catalogue;
  search: OperationSearch;
  alias?: string;
}

/** Another MCP server's accepted tools, searched beside the APIs (issue 20). */
export interface SearchableTools {
  /** How search_docs' `api` argument and its results name it: `mcp:<server>`. */
  name: string;
  server: string;
  catalogue: Catalogue;
  search: OperationSearch;
  /** The tool behind an operation of the catalogue, and how its hit is shown. */
  toolName(op: ApiOperation): string;
  call(op: ApiOperation): string;
  card(op: ApiOperation, rank: number): string;
  line(op: ApiOperation): string;
}

export interface SearchDocsContext {
  /** Other MCP servers' accepted tools in the session's reach. */
  tools?(): SearchableTools[];
  /** The APIs in the session's reach that are loaded, in name order (what the description names). */
  apis(): SearchableApi[];
  /** The same once those still loading are loaded (or failed): what a search searches. */
  ready(): Promise<SearchableApi[]>;
  /** Called after each search (audit, logs). */
  onSearch?(query: string, resultCount: number, ms: number): void;
}

/** The most APIs a description names one by one; the rest are counted (the description stays under 2 KB). */
const NAMED_IN_DESCRIPTION = 12;

export function searchDocsDescription(apis: SearchableApi[]): string {
  const what =
    apis.length === 1
      ? `the ${apiName(apis[0]!.catalogue.title)} documentation (${apis[0]!.catalogue.operations.length} operations)`
      : `the documentation of ${apis.length} APIs (${apis
          .slice(0, NAMED_IN_DESCRIPTION)
          .map((a) => `${a.id}: ${a.catalogue.title.slice(0, 40)}, ${a.catalogue.operations.length} operations`)
          .join('; ')}${apis.length > NAMED_IN_DESCRIPTION ? `; and ${apis.length - NAMED_IN_DESCRIPTION} more` : ''})`;
  return [
    apis.length === 0
      ? 'Search API documentation and get the exact client calls to use in `execute` (no API is served yet: the person running Airlock can enable one).'
      : `Search ${what} and get the exact client calls to use in \`execute\`.`,
    'Describe the task in plain words; the best matches come back with method, path, parameters (types, enums, defaults), request body and response shapes and a runnable example, the rest one line each.',
    ...(apis.length > 1 ? ['One query searches every API; give `api: "<name>"` to search one.'] : []),
    'Give `related: "<operationId>"` instead of a query for the operations that go with one (where the ids it takes come from, the same resource\'s other verbs).',
    "Give `api` and no query for that API's outline (its groups, each with its operation count), then `group` to list one group's operations.",
    'Always search before writing code that calls the API.',
  ].join(' ');
}

/** A title for the tool: the API's when there is one. */
function toolTitle(apis: SearchableApi[]): string {
  return apis.length === 1 ? `Search ${apis[0]!.catalogue.title} docs` : 'Search API docs';
}

/** search_docs' arguments: one object for every server (a registry may keep what it derives from it). */
const searchDocsToolInput = {
  ...searchDocsInput,
  api: z.string().trim().min(1).max(100).optional().describe("Search only this API (its name); alone, without a query: the API's outline"),
  group: z.string().trim().min(1).max(200).optional().describe('With `api`: one group of the outline, whose operations are listed'),
};

/** Registers search_docs; the function it returns writes its description again for the APIs in reach now. */
export function registerSearchDocs(tools: AuditedTools, ctx: SearchDocsContext): () => void {
  const atStart = ctx.apis();
  const tool = tools.register(
    'search_docs',
    {
      title: toolTitle(atStart),
      description: searchDocsDescription(atStart),
      inputSchema: searchDocsToolInput,
      outputSchema: searchDocsOutput,
      annotations: { title: toolTitle(atStart), readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ query, related, limit, api, group }) => {
      const started = performance.now();
      const fail = (text: string) => ({ result: { content: [{ type: 'text' as const, text }], isError: true } });
      if (!query && !related && !api) return fail('Give a query (what you want to do), related: an operationId, or api: an API for its outline.');
      const inReach = await ctx.ready();
      const toolsInReach = ctx.tools?.() ?? [];
      if (inReach.length === 0 && toolsInReach.length === 0)
        return fail('No API is served to this session yet: the person running Airlock can enable one (`airlock apis enable <name>`).');
      const isServer = (t: SearchableTools) =>
        api === t.name || api === `mcp.${t.server}` || (api === t.server && !inReach.some((a) => a.name === api || a.id === api));
      const chosenTools = api === undefined ? toolsInReach : toolsInReach.filter(isServer);
      const chosen = api === undefined ? inReach : inReach.filter((a) => a.name === api || a.id === api);
      if (chosen.length === 0 && chosenTools.length === 0)
        return fail(`No API '${api}' in reach of this session. In reach: ${[...inReach.map((a) => a.name), ...toolsInReach.map((t) => t.name)].join(', ')}.`);
      if (chosen.length === 0 && (!query || related)) {
        // A server's "outline": its tools, one line each.
        const t = chosenTools[0]!;
        const ops = t.catalogue.operations;
        ctx.onSearch?.(`outline ${t.name}`, ops.length, performance.now() - started);
        return {
          result: {
            content: [
              {
                type: 'text',
                text: `${ops.length} tools of MCP server ${t.server} (search with a query for their arguments):\n${ops.map((op) => t.line(op)).join('\n')}\n`,
              },
            ],
            structuredContent: { results: ops.map((op) => toolResult(t, op, 0)) },
          },
        };
      }
      // One API in reach: calls are written `api.…`, as they always were. Several: each with its API's name.
      const single = inReach.length === 1;
      const clientOf = (a: SearchableApi) => (single ? 'api' : a.id);
      if (!query && !related) {
        // The outline of one API, or one group of it: a way into an API whose words cannot be guessed.
        const a = chosen[0]!;
        const groups = outlineOf(a.catalogue, (tag) => a.search.tagText(tag));
        let text: string;
        let listed: SearchableApi['catalogue']['operations'] = [];
        if (group) {
          const found = groups.find((g) => g.name === group) ?? groups.find((g) => g.name.toLowerCase() === group.toLowerCase());
          if (!found)
            return fail(
              `No group '${group}' in ${a.catalogue.title}. Its groups: ${groups
                .map((g) => g.name)
                .join(', ')
                .slice(0, 1500)}.`,
            );
          text = renderGroup(a.catalogue.title, clientOf(a), found);
          listed = found.operations;
        } else {
          text = renderOutline(a.catalogue.title, groups);
        }
        ctx.onSearch?.(group ? `outline ${a.name} ${group}` : `outline ${a.name}`, listed.length, performance.now() - started);
        return {
          result: {
            content: [{ type: 'text', text }],
            structuredContent: {
              results: listed.map((op) => ({
                api: a.name,
                kind: 'api-call' as const,
                operationId: op.id,
                method: op.method,
                path: op.path,
                call: callOf(op, clientOf(a)),
                score: 0,
              })),
            },
          },
        };
      }
      let hits: PlacedHit[] = [];
      let heading: string;
      if (related) {
        let owner: SearchableApi | undefined;
        for (const a of chosen) {
          const found = relatedOperations(a.catalogue, related.startsWith(`${a.id}:`) ? related.slice(a.id.length + 1) : related, limit ?? 8);
          if (found) {
            owner = a;
            hits = found.map((h) => ({ ...h, catalogue: a.catalogue, client: clientOf(a) }));
            break;
          }
        }
        if (!owner)
          return fail(
            `No operation '${related}' in ${chosen.map((a) => a.catalogue.title).join(', ')}: give an operationId as search_docs' results name it (structuredContent.results[].operationId).`,
          );
        if (hits.length === 0) {
          const text = `Nothing in ${owner.catalogue.title} goes with ${related} (no list that yields its ids, no other verb of its resource, no operation that takes what it returns): search for what you need next.`;
          return { result: { content: [{ type: 'text', text }], structuredContent: { results: [] } } };
        }
        heading = `operations related to ${related}`;
      } else {
        const sources: { search: OperationSearch; catalogue: Catalogue; names: string[]; api?: SearchableApi; tools?: SearchableTools }[] = [
          ...chosen.map((a) => ({ search: a.search, catalogue: a.catalogue, names: [a.name, a.id, ...(a.alias ? [a.alias] : [])], api: a })),
          ...chosenTools.map((t) => ({ search: t.search, catalogue: t.catalogue, names: [t.server], tools: t })),
        ];
        hits = searchAcross(sources, query!, limit ?? 8).map(({ from, ...h }) => {
          const t = from.tools;
          if (t) return { ...h, catalogue: t.catalogue, client: 'mcp', render: { card: (rank: number) => t.card(h.op, rank), line: () => t.line(h.op) } };
          return { ...h, catalogue: from.catalogue, client: clientOf(from.api!) };
        });
        heading = query!;
      }
      const toolsBy = new Map(chosenTools.map((t) => [t.catalogue, t]));
      const only = chosen.length === 1 && chosenTools.length === 0 ? chosen[0]! : undefined;
      const text = only
        ? renderSearchResults(heading, hits, only.catalogue, { client: clientOf(only), ...(only.alias && single ? { alias: only.alias } : {}) })
        : renderScopedResults(heading, hits, [...chosen.map((a) => a.catalogue.title), ...chosenTools.map((t) => t.catalogue.title)]);
      ctx.onSearch?.(heading, hits.length, performance.now() - started);
      const nameOf = new Map(chosen.map((a) => [a.catalogue, a.name]));
      return {
        result: {
          content: [{ type: 'text', text }],
          structuredContent: {
            results: hits.map((h) => {
              const t = toolsBy.get(h.catalogue);
              return t
                ? toolResult(t, h.op, h.score)
                : {
                    api: nameOf.get(h.catalogue) ?? '',
                    kind: 'api-call' as const,
                    operationId: h.op.id,
                    method: h.op.method,
                    path: h.op.path,
                    call: callOf(h.op, h.client),
                    score: h.score,
                  };
            }),
          },
        },
      };
    },
  );
  return () => {
    const now = ctx.apis();
    tool.describe({ title: toolTitle(now), description: searchDocsDescription(now) });
  };
}

/** A tool hit as search_docs' structured results give it. */
function toolResult(t: SearchableTools, op: ApiOperation, score: number) {
  const tool = t.toolName(op);
  return { api: t.name, kind: 'tool-call' as const, operationId: tool, path: toolAddress(t.server, tool), call: t.call(op), score };
}
