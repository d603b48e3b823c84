// The search_docs MCP tool: find the operations that do what the model
// wants, rendered as exact calls for `execute`. Read-only, closed-world: it
// reads the loaded OpenAPI document and nothing else.
import { apiName } from './apiName.ts';
import { z } from 'zod';
import type { AuditedTools } from './auditedTools.ts';
import type { Catalogue } from '../openapi/catalogue.ts';
import type { OperationSearch } from '../search/operationSearch.ts';
import { renderSearchResults } from '../search/renderResults.ts';
import { relatedOperations } from '../search/relatedOperations.ts';

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
        operationId: z.string(),
        method: z.string(),
        path: z.string(),
        call: z.string().describe('The exact client method to use in execute, e.g. api.events.list'),
        score: z.number(),
      }),
    )
    .describe('Matching operations, best first'),
};

export interface SearchDocsContext {
  catalogue: Catalogue;
  search: OperationSearch;
  alias?: string;
  /** Called after each search (audit, logs). */
  onSearch?(query: string, resultCount: number, ms: number): void;
}

export function searchDocsDescription(ctx: SearchDocsContext): string {
  return [
    `Search the ${apiName(ctx.catalogue.title)} documentation (${ctx.catalogue.operations.length} operations) and get the exact client calls to use in \`execute\`.`,
    'Describe the task in plain words; the best matches come back with method, path, parameters (types, enums, defaults), request body and response shapes and a runnable example, the rest one line each.',
    'Give `related: "<operationId>"` instead of a query for the operations that go with one (where the ids it takes come from, the same resource\'s other verbs).',
    'Always search before writing code that calls the API.',
  ].join(' ');
}

export function registerSearchDocs(tools: AuditedTools, ctx: SearchDocsContext): void {
  tools.register(
    'search_docs',
    {
      title: `Search ${ctx.catalogue.title} docs`,
      description: searchDocsDescription(ctx),
      inputSchema: searchDocsInput,
      outputSchema: searchDocsOutput,
      annotations: { title: `Search ${ctx.catalogue.title} docs`, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ query, related, limit }) => {
      const started = performance.now();
      const fail = (text: string) => ({ result: { content: [{ type: 'text' as const, text }], isError: true } });
      if (!query && !related) return fail('Give a query (what you want to do), or related: an operationId.');
      let hits;
      let heading: string;
      if (related) {
        const found = relatedOperations(ctx.catalogue, related, limit ?? 8);
        if (!found) return fail(`No operation '${related}' in ${ctx.catalogue.title}: search for it first (the results name each operationId).`);
        hits = found;
        heading = `operations related to ${related}`;
      } else {
        hits = ctx.search.search(query!, limit ?? 8);
        heading = query!;
      }
      const text = renderSearchResults(heading, hits, ctx.catalogue, ctx.alias ? { alias: ctx.alias } : {});
      ctx.onSearch?.(heading, hits.length, performance.now() - started);
      return {
        result: {
          content: [{ type: 'text', text }],
          structuredContent: {
            results: hits.map((h) => ({ operationId: h.op.id, method: h.op.method, path: h.op.path, call: h.op.call, score: h.score })),
          },
        },
      };
    },
  );
}
