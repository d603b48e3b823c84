// Another MCP server's questions (elicitation), put to the person in
// Airlock's own prompt (issue 38 §5). A server asks while one of its tools
// runs: by a request of its own in 2025, by answering `input_required` in
// 2026-07-28 (the v2 SDK's client turns both into one handler call). The
// question goes into the approval queue as a `server-question`, with the
// server's message and the fields it wants; the person's answer goes back
// to that server only, a no (or no answer in time) declines. Nothing is
// granted: each question is answered once.
//
// Which call asked: the tool gate runs each call to a server inside
// `during`, so the question is put with that call's run (its client, its
// script). A 2025 server's request reaches the handler outside the call's
// async context; it is then the one call to that server in flight, or, with
// several, the latest (the prompt names the server and the tool either way).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import type { QuestionAnswer, QuestionField, ServerQuestionRequest } from '../../../contract/approvals.ts';
import type { ApprovalHook } from '../approvals/types.ts';
import type { RunContext } from '../gate/runContext.ts';
import type { Logger } from '../log/logger.ts';
import { serverProfile } from '../../../contract/calls.ts';

/** The call a question comes with. */
export interface Asking {
  server: string;
  tool: string;
  run: RunContext;
}

export interface ServerQuestions {
  /** Runs `work` (one call of `asking.tool`) so that a question its server asks meanwhile is put with that call. */
  during<T>(asking: Asking, work: () => Promise<T>): Promise<T>;
  /** Puts a server's question to the person: their answer, or undefined (declined, or no answer in time). */
  ask(server: string, message: string, schema: Record<string, unknown>): Promise<QuestionAnswer | undefined>;
}

/** How much of a server's words a prompt shows. */
const MESSAGE_CHARS = 4_000;
const TEXT_CHARS = 500;
const MAX_FIELDS = 30;

type Property = {
  type?: unknown;
  title?: unknown;
  description?: unknown;
  enum?: unknown;
  oneOf?: unknown;
  anyOf?: unknown;
  items?: Property;
  format?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  minItems?: unknown;
  maxItems?: unknown;
  default?: unknown;
};

const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

/** The values an enum gives (`enum`, or `oneOf` / `anyOf` of `const`s, as MCP's titled enums are written). */
function choicesOf(p: Property | undefined): string[] | undefined {
  if (!p) return undefined;
  if (Array.isArray(p.enum)) return p.enum.map(String);
  const options = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  const values = (options as { const?: unknown }[] | undefined)?.flatMap((o) => (o && o.const !== undefined ? [String(o.const)] : []));
  return values && values.length > 0 ? values : undefined;
}

const numberOr = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The form a question's schema asks for, or why Airlock's prompt cannot ask it (MCP elicitation's flat schema only). */
export function questionFields(schema: Record<string, unknown>, redact: (text: string) => string): QuestionField[] | string {
  const properties = (schema.properties ?? {}) as Record<string, Property>;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const names = Object.keys(properties);
  if (names.length > MAX_FIELDS) return `it asks for ${names.length} fields (a prompt asks at most ${MAX_FIELDS})`;
  const fields: QuestionField[] = [];
  for (const name of names) {
    const p = properties[name] ?? {};
    const list = p.type === 'array' ? choicesOf(p.items) : undefined;
    const type = p.type === 'array' ? (list ? 'list' : undefined) : p.type;
    if (type !== 'string' && type !== 'number' && type !== 'integer' && type !== 'boolean' && type !== 'list')
      return `its field "${name.slice(0, 100)}" is of a kind Airlock's prompt cannot ask (${JSON.stringify(p.type ?? null).slice(0, 40)})`;
    const text = (v: unknown) => (typeof v === 'string' && v.trim() ? redact(v).slice(0, TEXT_CHARS) : undefined);
    const choices = type === 'list' ? list : type === 'string' ? choicesOf(p) : undefined;
    const title = text(p.title);
    const description = text(p.description);
    const minimum = numberOr(type === 'list' ? p.minItems : p.minimum);
    const maximum = numberOr(type === 'list' ? p.maxItems : p.maximum);
    const fallback = p.default;
    const isDefault =
      typeof fallback === 'string' ||
      typeof fallback === 'number' ||
      typeof fallback === 'boolean' ||
      (type === 'list' && Array.isArray(fallback) && fallback.every((v) => typeof v === 'string'));
    fields.push({
      name,
      type,
      required: required.has(name),
      ...(title ? { title } : {}),
      ...(description ? { description } : {}),
      ...(choices && choices.length > 0 ? { choices } : {}),
      ...(type === 'string' && typeof p.format === 'string' && FORMATS.has(p.format) ? { format: p.format as QuestionField['format'] } : {}),
      ...(minimum !== undefined && type !== 'string' && type !== 'boolean' ? { minimum } : {}),
      ...(maximum !== undefined && type !== 'string' && type !== 'boolean' ? { maximum } : {}),
      ...(isDefault ? { default: fallback as QuestionField['default'] } : {}),
    });
  }
  return fields;
}

export function serverQuestions(deps: { approvals: ApprovalHook; logger: Logger; redact(text: string): string }): ServerQuestions {
  const current = new AsyncLocalStorage<Asking>();
  const inFlight = new Map<string, Asking[]>();
  const log = deps.logger;
  return {
    async during(asking, work) {
      const list = inFlight.get(asking.server) ?? [];
      list.push(asking);
      inFlight.set(asking.server, list);
      try {
        return await current.run(asking, work);
      } finally {
        list.splice(list.indexOf(asking), 1);
        if (list.length === 0) inFlight.delete(asking.server);
      }
    },
    async ask(server, message, schema) {
      const mine = current.getStore();
      const asking = mine?.server === server ? mine : inFlight.get(server)?.at(-1);
      if (!asking) {
        log.warn(`MCP server ${server} asked a question outside any call Airlock made: declined`);
        return undefined;
      }
      const fields = questionFields(schema, deps.redact);
      if (typeof fields === 'string') {
        log.warn(`MCP server ${server} asked a question Airlock cannot put to you: ${fields}; declined`);
        return undefined;
      }
      const { run } = asking;
      const shown = deps.redact(message).slice(0, MESSAGE_CHARS);
      const request: ServerQuestionRequest = {
        kind: 'server-question',
        runId: run.runId,
        caller: run.caller,
        profile: serverProfile(server),
        reason: 'question',
        rule: 'a server asks the person, never the client: its question is put to you in Airlock',
        operationId: asking.tool,
        call: `mcp.${server}.${asking.tool}`,
        summary: shown.split('\n')[0]!.slice(0, 300),
        server,
        tool: asking.tool,
        message: shown,
        fields,
        // Each question is its own: nothing is granted, and no two are taken for the same.
        requestHash: createHash('sha256').update(`server-question\n${server}\n${randomUUID()}`).digest('hex'),
        callIndex: Math.max(1, run.calls.length + 1),
        earlierCalls: run.calls.map((c) => ({ ...c })),
        scriptSha256: run.scriptSha256,
        script: deps.redact(run.script),
      };
      // The run waits for the person as it does for an approval: its client is kept informed (progress, a task's status).
      const waited = run.onWaiting?.(`Waiting for your answer in Airlock: MCP server ${server} asks a question`);
      // The run's clock stops while the person answers, as it does for an approval (its deadline counts its own work).
      const decision = await run.control.whilePaused(() => deps.approvals.request(request, run.signal ? { signal: run.signal } : {})).finally(() => waited?.());
      log.info(
        `MCP server ${server} asked a question while ${asking.tool} ran: ${decision.approved ? `answered by ${decision.by}` : `declined (${decision.reason})`}`,
        { runId: run.runId },
      );
      return decision.approved ? (decision.answer ?? {}) : undefined;
    },
  };
}
