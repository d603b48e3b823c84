// A plain tools/call of the 2026-07-28 revision, answered without the v2
// SDK's per-request machinery. The SDK checks each request's envelope
// against its zod schemas, validates the call twice and its result once more,
// and over HTTP classifies the request, builds a transport for it and reads
// its answer back from a web Response: ~0.1–0.3 ms of every modern call here,
// which the 2025 revision's sessions do not pay (issue 38 §6: the modern path
// no slower). Airlock's own tools are called here as the SDK calls them —
// the same arguments (checked by the same schema), the same audited handler
// (runAudited), the result written as the SDK's 2026 codec writes it; a call
// that is not plain goes to the SDK, which answers it in full:
//   - not a JSON-RPC request with an id and only `name`, `arguments` and the
//     revision's envelope (protocol version, client name and version,
//     capabilities) — a progress token, a retried round (inputResponses,
//     requestState), anything else the SDK reads;
//   - a client that declares the Tasks extension (its held run becomes a task);
//   - a tool that is not one of Airlock's own (another server's, listed with
//     its server's schema) or that the server does not have;
//   - arguments the tool's schema refuses (the SDK's error names the field).
import {
  CLIENT_CAPABILITIES_META_KEY as CLIENT_CAPABILITIES,
  CLIENT_INFO_META_KEY as CLIENT_INFO,
  PROTOCOL_VERSION_META_KEY as PROTOCOL_VERSION,
  SERVER_INFO_META_KEY as SERVER_INFO_KEY,
  isInputRequiredResult,
  specTypeSchemas,
} from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { messageOf } from '../../../contract/values.ts';
import { SERVER_INFO } from './serverIdentity.ts';
import { TASKS_EXTENSION } from './modernTasks.ts';

const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION, CLIENT_INFO, CLIENT_CAPABILITIES]);

/** A standard schema (zod's, as the SDK is handed it): what validates a tool's arguments or structured result. */
export interface StandardSchema {
  '~standard': { validate(value: unknown): unknown };
}

/** What a direct call's handler gets besides its arguments: the request's envelope, and its abort signal. */
export interface DirectCallContext {
  envelope: Record<string, unknown>;
  signal: AbortSignal;
}

/** One of Airlock's tools, callable directly: its schemas as the SDK was given them, and its audited handler. */
export interface DirectTool {
  input: StandardSchema;
  output?: StandardSchema;
  run(args: unknown, ctx: DirectCallContext): Promise<CallToolResult>;
}

/** A modern server's own tools, by name (a registry's `remove` takes a tool out). */
export type DirectTools = Map<string, DirectTool>;

/** A plain call, as read. */
export interface PlainCall {
  id: string | number;
  name: string;
  arguments: unknown;
  envelope: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/** How many envelopes' verdicts are kept (a client sends the same one with each request). */
const MAX_ENVELOPES = 256;
const envelopes = new Map<string, boolean>();

/**
 * Whether the SDK's schemas accept the client's name and capabilities as they stand (a capability of the wrong shape,
 * a title that is not text: the SDK refuses the request, so it is the SDK's to answer). Kept by the envelope's text.
 */
function envelopeAccepted(info: unknown, capabilities: unknown): boolean {
  const text = JSON.stringify([info, capabilities]);
  let verdict = envelopes.get(text);
  if (verdict === undefined) {
    const accepts = (schema: { '~standard': { validate(value: unknown): { issues?: readonly unknown[] } } }, value: unknown) =>
      !schema['~standard'].validate(value).issues;
    verdict = accepts(specTypeSchemas.Implementation, info) && accepts(specTypeSchemas.ClientCapabilities, capabilities);
    if (envelopes.size >= MAX_ENVELOPES) envelopes.delete(envelopes.keys().next().value!);
    envelopes.set(text, verdict);
  }
  return verdict;
}

/**
 * Whether a request's `_meta` is the envelope of `revision` as the SDK accepts it, with nothing the SDK would act on
 * beyond it: the revision, a client name and version, capabilities (a request answered from what Airlock keeps or
 * does itself, not the SDK, must be one the SDK would have answered the same way).
 */
export function isPlainEnvelope(meta: unknown, revision: string): meta is Record<string, unknown> {
  if (!isObject(meta)) return false;
  for (const key in meta) if (!ENVELOPE_KEYS.has(key)) return false;
  const info = meta[CLIENT_INFO];
  const capabilities = meta[CLIENT_CAPABILITIES];
  if (meta[PROTOCOL_VERSION] !== revision || !isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') return false;
  return isObject(capabilities) && envelopeAccepted(info, capabilities);
}

/** The call in `body` when it is a plain tools/call of `revision` (see the top of this file); undefined: the SDK's. */
export function plainModernCall(body: unknown, revision: string): PlainCall | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  for (const key in body) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  const { id, params } = body;
  if ((typeof id !== 'string' && !Number.isInteger(id)) || !isObject(params) || typeof params.name !== 'string') return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return undefined;
  if (params.arguments !== undefined && !isObject(params.arguments)) return undefined;
  const meta = params._meta;
  if (!isPlainEnvelope(meta, revision)) return undefined;
  const capabilities = meta[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> };
  if (isObject(capabilities.extensions) && capabilities.extensions[TASKS_EXTENSION] !== undefined) return undefined;
  return { id: id as string | number, name: params.name, arguments: params.arguments, envelope: meta };
}

type Issue = { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] };

/** A schema's verdict on `value`: its output, or what it refuses, written as the SDK writes it. */
async function checked(schema: StandardSchema, value: unknown): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const verdict = (await schema['~standard'].validate(value)) as { value?: unknown; issues?: readonly Issue[] };
  if (!verdict.issues || verdict.issues.length === 0) return { ok: true, value: verdict.value };
  const issue = (i: Issue) => (i.path?.length ? `${i.path.map((p) => String(typeof p === 'object' ? p.key : p)).join('.')}: ${i.message}` : i.message);
  return { ok: false, error: verdict.issues.map(issue).join(', ') };
}

/** A tool's failure as the SDK answers it: an error result carrying the message. */
const toolError = (message: string): CallToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

/**
 * A tool's result as the SDK's 2026-07-28 codec writes it for tools/call, in its order: a structured result that is
 * not an object gets a text copy, a result without content an empty one, then `resultType`, and the server's name in
 * `_meta`. An `input_required` result is written as it is, with the last two.
 */
export function modernCallResult(result: CallToolResult): Record<string, unknown> {
  let out = result as Record<string, unknown>;
  if (!isInputRequiredResult(out)) {
    const structured = out.structuredContent;
    const content = out.content as { type: string }[] | undefined;
    if (structured !== undefined && !isObject(structured) && !(content?.some((c) => c.type === 'text') ?? false))
      out = { ...out, content: [...(content ?? []), { type: 'text', text: JSON.stringify(structured) }] };
    if (out.content === undefined && !('task' in out) && !('inputRequests' in out) && !('requestState' in out)) out = { ...out, content: [] };
  }
  if (out.resultType === undefined) out = { ...out, resultType: 'complete' };
  const meta = out._meta;
  if (meta === undefined) return { ...out, _meta: { [SERVER_INFO_KEY]: { ...SERVER_INFO } } };
  if (!isObject(meta) || meta[SERVER_INFO_KEY] !== undefined) return out;
  return { ...out, _meta: { ...meta, [SERVER_INFO_KEY]: { ...SERVER_INFO } } };
}

/**
 * Calls `call` on `tools` as the SDK would: its arguments checked by the tool's schema, its result (if the tool
 * declares one) by its output schema. Resolves to the answer's JSON-RPC message, or undefined when the SDK must answer
 * it (a tool not here, arguments refused); rejects only before the tool runs (the SDK may then answer it). Once the
 * tool has run, whatever fails is answered as the tool's error, as the SDK answers it.
 */
export async function callDirect(tools: DirectTools | undefined, call: PlainCall, signal: AbortSignal): Promise<Record<string, unknown> | undefined> {
  const tool = tools?.get(call.name);
  if (!tool) return undefined;
  const args = await checked(tool.input, call.arguments ?? {});
  if (!args.ok) return undefined;
  let answer: Record<string, unknown>;
  try {
    let result = await tool.run(args.value, { envelope: call.envelope, signal });
    if (tool.output && !isInputRequiredResult(result) && !result.isError) {
      if (result.structuredContent === undefined)
        result = toolError(`Output validation error: Tool ${call.name} has an output schema but no structured content was provided`);
      else {
        const output = await checked(tool.output, result.structuredContent);
        if (!output.ok) result = toolError(`Output validation error: Invalid structured content for tool ${call.name}: ${output.error}`);
      }
    }
    answer = modernCallResult(result);
  } catch (error) {
    answer = modernCallResult(toolError(messageOf(error)));
  }
  // In the order the SDK writes its answers, so the joined pipe's shim passes the line on unparsed (leanMcpPipe.ts).
  return { result: answer, jsonrpc: '2.0', id: call.id };
}

/** Each modern server's own tools, for direct calls (filled by its registry: modernTools.ts). */
const directTools = new WeakMap<object, DirectTools>();

/** The direct-call table of `server` (made on first ask). */
export function directToolsOf(server: object): DirectTools {
  let tools = directTools.get(server);
  if (!tools) directTools.set(server, (tools = new Map()));
  return tools;
}

/**
 * One stdio connection's direct calls: a plain call is taken from the wire and answered here; a cancellation naming
 * one aborts it; the connection closing aborts them all (as the SDK aborts the requests it holds).
 */
export class DirectCallLine {
  private readonly running = new Map<string | number, AbortController>();
  private closed = false;
  private readonly tools: DirectTools;
  private readonly revision: string;
  private readonly answer: (message: Record<string, unknown>) => Promise<void>;
  private readonly handOn: (raw: unknown) => void;

  /** `answer` writes an answer on the wire; `handOn` gives a message to the SDK, as the wire would have. */
  constructor(tools: DirectTools, revision: string, answer: (message: Record<string, unknown>) => Promise<void>, handOn: (raw: unknown) => void) {
    this.tools = tools;
    this.revision = revision;
    this.answer = answer;
    this.handOn = handOn;
  }

  /** Whether `raw` is taken here (a plain call of one of the tools, or a cancellation of one running). */
  take(raw: unknown): boolean {
    if (this.closed) return false;
    const cancelled = this.cancellation(raw);
    if (cancelled !== undefined) {
      const running = this.running.get(cancelled);
      if (!running) return false;
      running.abort(new Error('the client cancelled the call'));
      return true;
    }
    const call = plainModernCall(raw, this.revision);
    if (!call || !this.tools.has(call.name) || this.running.has(call.id)) return false;
    const controller = new AbortController();
    this.running.set(call.id, controller);
    void callDirect(this.tools, call, controller.signal)
      .then((message) => {
        if (this.running.get(call.id) === controller) this.running.delete(call.id);
        // A call cancelled (or cut off by the connection closing) is not answered, as the SDK answers none.
        if (this.closed || controller.signal.aborted) return;
        if (message) return this.answer(message);
        this.handOn(raw);
      })
      .catch(() => {
        // Failed before the tool ran (its schema threw): the SDK answers it.
        if (this.running.get(call.id) === controller) this.running.delete(call.id);
        if (!this.closed && !controller.signal.aborted) this.handOn(raw);
      });
    return true;
  }

  /** The connection ended: every call running is aborted, and none is answered. */
  close(): void {
    this.closed = true;
    for (const controller of this.running.values()) controller.abort(new Error('the connection closed'));
    this.running.clear();
  }

  private cancellation(raw: unknown): string | number | undefined {
    if (!isObject(raw) || raw.method !== 'notifications/cancelled' || 'id' in raw || !isObject(raw.params)) return undefined;
    const id = raw.params.requestId;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  }
}
