// The execute MCP tool: run the model's JavaScript against the API client in
// the configured sandbox. Not read-only, open-world, destructive. Its
// description states the deployment's real boundary and caps, so a model
// never reads a promise the deployment does not keep.
import { clientPhrase, exampleReceiver, namedOf, type ApiInReach } from './apisInReach.ts';
import { apiName } from './apiName.ts';
import { z } from 'zod';
import type { ExecuteService } from '../execute/executeService.ts';
import type { AuditedTools } from './auditedTools.ts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { answerOf, askInClient, type InClientApprovals, type SealedRound } from './inClientApproval.ts';

export const executeInput = {
  code: z
    .string()
    .optional()
    .describe(
      'The body of an async JavaScript function. Use the API client (e.g. `const { data, error } = await api.events.list({ query: { limit: 5 } });`), `console.log` if useful, and `return` a JSON-serialisable value.',
    ),
  resume: z
    .string()
    .max(100)
    .optional()
    .describe(
      'Instead of code: the id of a run answered "held" (it waits for a person\'s approval). Waits again and returns the run\'s final result once decided.',
    ),
};

/** What the audit records as an execute call's input: the code, or which run it resumed. */
export function executeInputText(args: unknown): string {
  const a = (args ?? {}) as { code?: unknown; resume?: unknown };
  if (typeof a.code === 'string' && a.code) return a.code;
  return typeof a.resume === 'string' ? `resume ${a.resume}` : '';
}

export interface ExecuteToolContext {
  service: ExecuteService;
  /** The APIs the session reaches that are loaded (read when the description is written). */
  apis(): readonly ApiInReach[];
  /** The session's scope, passed to each run (absent: every API served). */
  scope?: readonly string[];
  /** Sentences about the engine, the network boundary and the caps, from the running configuration (read when the description is written). */
  boundary(): string;
  /** Ask the person through the client's elicitation when no approver is attached (default: when the client supports it). */
  elicitation?: boolean;
  /** How often a call waiting for a person tells its client so, read at each call (default PROGRESS_EVERY_MS). */
  progressEveryMs?(): number;
  /** Other MCP servers' tools the session's runs reach (`mcp.<server>.<tool>`), read when the description is written. */
  tools?(): readonly { name: string; tools: readonly string[] }[];
  /** Approval through the client on 2026-07-28 (`input_required`), where the person allowed it. */
  inClient?: InClientApprovals;
}

/** How many servers, and tools of each, the description names (it stays short however many there are). */
const SERVERS_NAMED = 6;
const TOOLS_NAMED = 8;

/** What the description says of other MCP servers' tools, if the session reaches any. */
function toolsSentence(servers: readonly { name: string; tools: readonly string[] }[]): string | undefined {
  const reached = servers.filter((s) => s.tools.length > 0);
  if (reached.length === 0) return undefined;
  const named = reached.slice(0, SERVERS_NAMED).map((s) => {
    const some = s.tools.slice(0, TOOLS_NAMED).map((t) => t.slice(0, 40));
    return `mcp.${s.name} (${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}: ${some.join(', ')}${s.tools.length > some.length ? ', …' : ''})`;
  });
  const more = reached.length > SERVERS_NAMED ? `, and ${reached.length - SERVERS_NAMED} more servers` : '';
  return `Other MCP servers' tools are reachable too, behind the same approvals: \`await mcp.<server>.<tool>(args)\` (args: the tool's arguments as an object; a name with a dash: \`mcp.server['tool-name'](args)\`) resolves to { data, error, status }, data being the tool's structured content or its text. In reach: ${named.join('; ')}${more}.`;
}

export function executeDescription(ctx: Pick<ExecuteToolContext, 'apis' | 'boundary' | 'tools'>): string {
  const apis = ctx.apis().map(namedOf);
  const against = apis.length === 1 ? `the ${apiName(apis[0]!.title!)}` : apis.length === 0 ? 'web APIs' : `${apis.length} APIs`;
  const receiver = exampleReceiver(apis);
  return [
    `Run JavaScript against ${against}. The code is the body of an async function; ${clientPhrase(apis)}, with one async method per operation (find them with search_docs): \`await ${receiver}.ns.op({ path, query, body, headers })\` resolves to { data, error, status, headers } and never throws on HTTP errors. \`console.log\` output is returned beside the result. Return a JSON-serialisable value (strings are returned as is).`,
    ...[toolsSentence(ctx.tools?.() ?? [])].filter((t): t is string => t !== undefined),
    ctx.boundary(),
    'Calls that change data may wait for a person to approve them; a refusal comes back as the call\'s `error`. If the person takes long, the answer is "held" (nothing sent yet, `structuredContent.held.id`): call execute again with `{ "resume": id }` to wait for the run\'s final result; do not run the code again.',
  ].join('\n\n');
}

/**
 * While a call waits for a person, the client is told so at once and then every PROGRESS_EVERY_MS: clients
 * that reset their patience on progress (Claude Code) keep waiting, and show the message.
 */
export const PROGRESS_EVERY_MS = 10_000;

export function keepTelling(progress: (message: string) => void, message: string, everyMs: number): () => void {
  progress(message);
  const timer = setInterval(() => progress(message), everyMs);
  return () => clearInterval(timer);
}

function executeTitle(apis: readonly ApiInReach[]): string {
  return apis.length === 1 ? `Run code against ${apis[0]!.catalogue.title}` : 'Run code against APIs';
}

/** Registers execute; the function it returns writes its description again for the APIs in reach now. */
export function registerExecute(tools: AuditedTools, ctx: ExecuteToolContext): () => void {
  const atStart = ctx.apis();
  const title = executeTitle(atStart);
  // A session that began with one API keeps `api` for it when more come into reach (its scripts were told so).
  const only = atStart.length === 1 ? atStart[0]!.id : undefined;
  const tool = tools.register(
    'execute',
    {
      title,
      description: executeDescription(ctx),
      inputSchema: executeInput,
      annotations: { title, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      tasks: true,
    },
    async ({ code, resume }, { caller, signal, elicit: offered, progress, task, rounds, startTask }) => {
      const elicit = ctx.elicitation === false ? undefined : offered;
      // A retried round of a 2026-07-28 request: the state the companion sealed when it asked, and the answer.
      const round = rounds?.state as SealedRound | undefined;
      const answer = round ? answerOf(rounds?.responses) : undefined;
      // Asked in the client as soon as the run waits for a person: where the person allowed it, the client can be
      // asked, and it did not just dismiss the question (then Airlock's own prompt is left to answer, as usual).
      const askClient = ctx.inClient?.enabled() === true && rounds?.canElicit === true && !task && !(round && answer === undefined);
      // A 2026-07-28 client that declares the Tasks extension gets a task as soon as the run waits for a person.
      const asTask = !askClient && startTask !== undefined;
      const onWaiting = progress ? (what: string) => keepTelling(progress, what, ctx.progressEveryMs?.() ?? PROGRESS_EVERY_MS) : undefined;
      // A task is polled: it answers when the run is over, never "held".
      const options = {
        signal,
        ...(ctx.scope ? { scope: ctx.scope } : {}),
        ...(only ? { defaultApi: only } : {}),
        ...(elicit ? { elicit } : {}),
        ...(onWaiting ? { onWaiting } : {}),
        ...(task ? { replyAfterMs: 0 } : askClient || asTask ? { replyAfterMs: 1 } : {}),
      };
      if (round) {
        // Only the caller that was asked may answer, and collect: anyone else meets the run that never was.
        if (round.caller !== caller.key) {
          const text = `no run "${round.runId}" to resume: it is not this client's (its question was put to another client)`;
          return { result: { content: [{ type: 'text' as const, text }], isError: true }, outcome: 'refused', error: text };
        }
        if (answer && ctx.inClient) {
          const who = `${caller.clientName ?? 'the client'} in its own prompt (MCP input_required)`;
          ctx.inClient.decide(
            round.approvalId,
            answer === 'allow',
            who,
            answer === 'deny' ? `denied by the person in ${caller.clientName ?? 'the client'}` : undefined,
          );
        }
      }
      if (!round && (code === undefined) === (resume === undefined)) {
        const text =
          code === undefined
            ? 'pass `code` (the body of an async function to run) or `resume` (the id of a run answered "held")'
            : 'pass `code` or `resume`, not both: `resume` follows a run that was answered "held"; `code` starts a new one';
        return { result: { content: [{ type: 'text' as const, text }], isError: true }, outcome: 'invalid', error: text };
      }
      const runId = round?.runId ?? resume;
      const outcome = runId !== undefined ? await ctx.service.resume(runId, caller, options) : await ctx.service.execute(code!, caller, options);
      const pending = outcome.held && askClient ? ctx.inClient!.pendingFor(outcome.runId) : undefined;
      if (pending) {
        const asked = await askInClient(pending, { runId: outcome.runId, approvalId: pending.approvalId, caller: caller.key });
        return { result: asked as CallToolResult, outcome: 'held', runId: outcome.runId };
      }
      if (outcome.held && asTask) {
        const held = outcome.runId;
        const waiting = `Waiting for your approval in Airlock: ${outcome.held.operation}`;
        const created = startTask!(waiting, async (work) => {
          const final = await ctx.service.resume(held, caller, {
            signal: work.signal,
            ...(ctx.scope ? { scope: ctx.scope } : {}),
            replyAfterMs: 0,
            onWaiting: (what) => {
              work.status(what);
              return () => work.status('running');
            },
          });
          return { content: [{ type: 'text' as const, text: final.text }], ...(final.isError ? { isError: true } : {}) };
        });
        return { result: created, outcome: 'held', runId: held };
      }
      return {
        result: {
          content: [{ type: 'text' as const, text: outcome.text }],
          ...(outcome.held ? { structuredContent: { held: outcome.held } } : {}),
          ...(outcome.isError ? { isError: true } : {}),
        },
        outcome: outcome.outcome,
        runId: outcome.runId,
        ...(outcome.isError ? { error: outcome.text.slice(0, 1000) } : {}),
      };
    },
  );
  return () => tool.describe({ title: executeTitle(ctx.apis()), description: executeDescription(ctx) });
}
