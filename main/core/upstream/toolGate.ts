// The gate every call to another MCP server's tool goes through (issue 20),
// as the egress gate is for API calls: the server's tools must have been
// accepted by a person as they are now (toolPins.ts); the call's policy is
// the person's for that tool, else their default for the server, else what
// the tool's annotations say (toolPolicy.ts); under "ask" a person sees the
// server, the tool, its description and the arguments, and an answer covers
// exactly those arguments. The result goes back through the redactor (a
// secret a server echoes never gets out), cut at a size cap that the result
// itself then states, and every call is one audit record — server, tool,
// arguments redacted, result size, outcome and decision — under the run that
// made it. It never throws at the sandbox: failures are `{ error }`.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApiCallResult } from '../sandbox/engine.ts';
import type { Logger } from '../log/logger.ts';
import { redactDeep, type Redactor } from '../log/redactor.ts';
import type { ApiCallRecord, GateDecision } from '../audit/types.ts';
import type { ApprovalDecision, ApprovalHook, ToolCallApprovalRequest } from '../approvals/types.ts';
import type { RunContext } from '../gate/runContext.ts';
import { AuditWriteError, approvalField, callRecord } from '../gate/callRecords.ts';
import { gateError, passGate, stop, type GateSource, type PathOptions } from '../gate/decisionPath.ts';
import type { AskFloor } from '../config/managedPolicy.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import { errorMessage } from '../util/errors.ts';
import type { ServerEntry } from './serverEntry.ts';
import { policyFor, toolKind } from './toolPolicy.ts';
import type { Review } from './toolPins.ts';
import { messageOf } from '../../../contract/values.ts';
import { serverProfile, toolAddress } from '../../../contract/calls.ts';
import type { ServerQuestions } from './serverQuestions.ts';

/** The largest tool result a script or a client gets, as JSON; the rest is cut, and the result says so. */
export const DEFAULT_MAX_RESULT_BYTES = 512 * 1024;
/** The largest arguments sent to another server by default, as JSON. */
export const DEFAULT_MAX_ARGUMENT_BYTES = 10 * 1024 * 1024;

function megabytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

/** The most of a call's arguments a person is shown and the audit keeps. */
const ARGUMENTS_PREVIEW_CHARS = 16_384;
const DESCRIPTION_CHARS = 2000;

/** What the gate needs of the running servers. */
export interface ToolSource {
  entry(server: string): ServerEntry | undefined;
  tools(server: string): Promise<{ tools: Tool[]; review: Review }>;
  call(server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult>;
}

export interface ToolGateOptions {
  servers: ToolSource;
  approvals?: ApprovalHook;
  /** The process-wide redactor: it knows every key and every server secret read so far. */
  redactor(): Redactor;
  onApiCall?(record: ApiCallRecord): void | Promise<unknown>;
  logger: Logger;
  maxResultBytes?: number;
  /** The largest arguments sent to a server, as JSON (default 10 MB; read at each call: a setting). */
  maxArgumentBytes?(): number;
  /** The kill switch: when on, no call goes out (a client's direct calls included). */
  killSwitch?(): boolean;
  /** The organisation's floor on asking, as it is now (decisionPath.ts). */
  askFloor?(): AskFloor | undefined;
  /** Where each call's span and counts go (telemetry on). */
  telemetry?: Telemetry;
  /** The client's rate, shared with its API calls: false when this call is over it (scripts' and direct calls alike). */
  rateLimit?(callerKey: string): boolean;
  /** Where a server's questions go: each call runs inside `during`, so a question is put with the call that it came with. */
  questions?: Pick<ServerQuestions, 'during'>;
}

export interface ToolCall {
  server: string;
  tool: string;
  /** The tool's arguments: an object (absent: none). */
  args: unknown;
  /** A client's direct call, under this name (`fs__write_file`); absent: from a script. */
  direct?: string;
}

export interface ToolGate {
  /** A script's call: the result as `{ data, error, status }`, like an API call's. */
  call(call: ToolCall, run: RunContext): Promise<ApiCallResult>;
  /** A client's direct call (`<server>__<tool>`): the tool's own result, redacted and capped; a refusal as an error result. */
  callDirect(call: ToolCall, run: RunContext): Promise<CallToolResult>;
}

/** What one gated call came to: the server's answer (recorded already), or what Airlock answers instead. */
type Handled = { ok: true; raw: CallToolResult; redact: Redactor } | { ok: false; refusal: ApiCallResult };

export function createToolGate(options: ToolGateOptions): ToolGate {
  const max = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const path: PathOptions = {
    approvals: options.approvals,
    rateLimit: options.rateLimit,
    killSwitch: options.killSwitch,
    askFloor: options.askFloor,
    telemetry: options.telemetry,
  };
  const handle = async (call: ToolCall, run: RunContext): Promise<Handled> => {
    try {
      const outcome = await passGate(path, toolSource(options, call, run), run);
      return 'refused' in outcome ? { ok: false, refusal: outcome.refused } : outcome.sent;
    } catch (error) {
      if (error instanceof AuditWriteError)
        return {
          ok: false,
          refusal: gateError('airlock_audit_failed', 'the audit log could not record this call, so its result is withheld; see the Airlock log'),
        };
      options.logger.error(`tool gate failure: ${(error as Error).stack ?? error}`);
      return { ok: false, refusal: gateError('airlock_internal_error', 'the gate failed to handle this call; see the Airlock log') };
    }
  };
  return {
    async call(call, run) {
      const handled = await handle(call, run);
      if (!handled.ok) return handled.refusal;
      const answer = scriptResult(handled.raw, handled.redact, max);
      return { data: answer.data, error: answer.error, status: answer.status };
    },
    async callDirect(call, run) {
      const handled = await handle(call, run);
      if (!handled.ok) {
        const { code, message } = handled.refusal.error as { code: string; message: string };
        return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] };
      }
      return clientResult(handled.raw, handled.redact, max);
    },
  };
}

/** The MCP-tool adapter of the decision path (gate/decisionPath.ts), for one call. */
function toolSource(options: ToolGateOptions, call: ToolCall, run: RunContext): GateSource<Handled> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  // Read at each use: starting the server (the policy step) teaches the shared redactor its secrets, and a redactor
  // taken before that would not know them.
  const redact: Redactor = Object.assign((text: string) => options.redactor()(text), {
    leaks: (text: string) => options.redactor().leaks(text),
    redactBytes: (bytes: Buffer) => options.redactor().redactBytes(bytes),
  });
  const what = `${call.server}/${call.tool}`;
  const url = toolAddress(call.server, call.tool);
  const argsJson = JSON.stringify(call.args ?? {}) ?? '{}';
  let entry: ServerEntry | undefined;
  let tool: Tool | undefined;
  const record = async (fields: { decision: GateDecision; status: number; bytes?: number; error?: string; approval?: ApprovalDecision | undefined }) => {
    const full = callRecord(run, serverProfile(call.server), {
      operationId: call.tool,
      callKind: 'tool-call',
      server: call.server,
      url,
      status: fields.status,
      durationMs: performance.now() - started,
      bytes: fields.bytes ?? 0,
      decision: fields.decision,
      ...approvalField(fields.approval),
      ...(fields.error ? { error: redact(fields.error) } : {}),
      startedAt,
      arguments: redact(argsJson).slice(0, ARGUMENTS_PREVIEW_CHARS),
      // A client's direct call: one disk flush, its tool record's, before the client hears back (not one for each).
      ...(call.direct ? { flushedWithRun: true } : {}),
    });
    run.calls.push({ callKind: 'tool-call', url: full.url, status: full.status, decision: full.decision });
    options.logger.info(`tool ${what} → ${fields.decision}${fields.error ? `: ${redact(fields.error)}` : ''}`, { runId: run.runId });
    const recorded = Promise.resolve(options.onApiCall?.(full)).catch((error: unknown) => {
      throw new AuditWriteError(messageOf(error));
    });
    // A client's direct call: its tool record, written next, waits for this one too (RunContext.deferRecord).
    if (call.direct && run.deferRecord) run.deferRecord(recorded);
    else await recorded;
  };
  return {
    what,
    deniedCode: 'airlock_tool_denied',
    describe: () => ({ source: 'tool', server: call.server, tool: call.tool }),
    outcomeOf: (handled) => (handled.ok ? (handled.raw.isError ? { error: 'tool_error' } : {}) : { status: handled.refusal.status, error: 'refused' }),
    // Well-formed, within the cap on messages to servers, a server Airlock knows: nothing is started for it yet.
    scope() {
      if (call.args !== undefined && (call.args === null || typeof call.args !== 'object' || Array.isArray(call.args)))
        return stop('airlock_invalid_request', `mcp.${call.server}.${call.tool}() takes one argument: an object of the tool's arguments`, 'refused');
      const maxArguments = options.maxArgumentBytes?.() ?? DEFAULT_MAX_ARGUMENT_BYTES;
      const argumentBytes = Buffer.byteLength(argsJson);
      if (argumentBytes > maxArguments) {
        const message = `the arguments of ${what} are ${megabytes(argumentBytes)} MB, over the ${megabytes(maxArguments)} MB cap on messages to other MCP servers; send less (a setting: --mcp-message-mb)`;
        return stop('airlock_request_too_large', message, 'refused');
      }
      entry = options.servers.entry(call.server);
      return entry ? undefined : stop('airlock_unknown_server', `no MCP server named '${call.server}'`, 'refused');
    },
    // The tools as a person accepted them (listing them starts the server), then the person's policy for this one.
    async policy() {
      let listed: { tools: Tool[]; review: Review };
      try {
        listed = await options.servers.tools(call.server);
      } catch (error) {
        return { stop: stop('airlock_server_unavailable', errorMessage(error), 'refused') };
      }
      if (listed.review.state !== 'accepted') {
        const why = listed.review.state === 'unreviewed' ? 'its tools have not been reviewed yet' : 'its tools changed since a person accepted them';
        const message = `MCP server ${call.server} is held: ${why}. The person running Airlock can review them: airlock servers show ${call.server}, then airlock servers accept ${call.server}.`;
        return { stop: stop('airlock_server_unreviewed', message, 'denied') };
      }
      tool = listed.tools.find((t) => t.name === call.tool);
      if (!tool) return { stop: stop('airlock_unknown_tool', `MCP server ${call.server} has no tool '${call.tool}'`, 'refused') };
      const policy = policyFor(entry!, tool);
      if (policy === 'deny') return { stop: stop('airlock_tool_denied', `${what} is refused by policy. A person can change it in Airlock.`, 'denied') };
      if (policy === 'ask') return { ask: true };
      // A tool that says it only reads, run unasked, is recorded as a read (its record is flushed with its run's).
      return { send: toolKind(tool.annotations) === 'read-only' ? 'read' : 'allowed' };
    },
    approvalRequest: async () => approvalRequest(call, tool!, { url, argsJson, run, redact }),
    // While the person decided, the server may have said its tools changed: the yes was for what was reviewed.
    async afterApproval() {
      const after = await options.servers.tools(call.server).catch(() => undefined);
      if (after?.review.state === 'accepted') return undefined;
      return stop(
        'airlock_server_unreviewed',
        `MCP server ${call.server}'s tools changed while the call waited: nothing was sent. A person can review them again.`,
        'refused',
      );
    },
    async send(passed): Promise<Handled> {
      let result: CallToolResult;
      try {
        const send = () => options.servers.call(call.server, call.tool, (call.args ?? {}) as Record<string, unknown>, run.signal);
        result = await (options.questions ? options.questions.during({ server: call.server, tool: call.tool, run }, send) : send());
      } catch (error) {
        await record({ decision: passed.decision, status: 0, error: errorMessage(error), approval: passed.approval });
        return { ok: false, refusal: gateError('airlock_tool_failed', redact(`${what} failed: ${messageOf(error)}`)) };
      }
      await record({
        decision: passed.decision,
        status: 200,
        bytes: Buffer.byteLength(JSON.stringify(result) ?? ''),
        ...(result.isError ? { error: errorText(result).slice(0, 1000) } : {}),
        approval: passed.approval,
      });
      return { ok: true, raw: result, redact };
    },
    async refuse({ result, decision, approval }) {
      const message = (result.error as { message?: string }).message ?? '';
      await record({ decision, status: 0, error: message, approval });
      return { ...result, error: redactDeep(result.error, redact) };
    },
  };
}

/** The arguments as a person reads them: whole, or cut with what was cut said (the whole is what a yes sends). */
function preview(text: string): string {
  if (text.length <= ARGUMENTS_PREVIEW_CHARS) return text;
  return `${text.slice(0, ARGUMENTS_PREVIEW_CHARS)}\n… and ${text.length - ARGUMENTS_PREVIEW_CHARS} more characters not shown here. A yes sends all of them: if you cannot tell what they are, say no.`;
}

/** What a person is asked about one tool call: the server, the tool, its description and the arguments, redacted. */
function approvalRequest(call: ToolCall, tool: Tool, at: { url: string; argsJson: string; run: RunContext; redact: Redactor }): ToolCallApprovalRequest {
  const { run, redact } = at;
  const a = tool.annotations ?? {};
  // The MCP spec's defaults: a tool that does not say it is read-only may destroy, unless it says it does not.
  const destructive = a.readOnlyHint !== true && a.destructiveHint !== false;
  const description = tool.description ? redact(tool.description).slice(0, DESCRIPTION_CHARS) : undefined;
  const firstLine = description?.split('\n')[0]?.trim();
  return {
    kind: 'tool-call',
    runId: run.runId,
    caller: run.caller,
    profile: serverProfile(call.server),
    reason: destructive ? 'destructive' : 'mutation',
    rule: a.readOnlyHint === true ? 'policy ask for this tool' : destructive ? 'the tool does not say it is read-only or harmless' : 'the tool changes data',
    operationId: call.tool,
    call: `mcp.${call.server}.${call.tool}`,
    ...(firstLine ? { summary: firstLine.slice(0, 300) } : {}),
    server: call.server,
    tool: call.tool,
    address: at.url,
    ...(description ? { description } : {}),
    ...(a.readOnlyHint !== undefined ? { readOnly: a.readOnlyHint } : {}),
    ...(a.destructiveHint !== undefined ? { destructive: a.destructiveHint } : {}),
    ...(call.direct ? { direct: call.direct } : {}),
    arguments: preview(redact(JSON.stringify(call.args ?? {}, null, 2) ?? '{}')),
    // An approval binds to the tool's address and the exact arguments sent.
    requestHash: createHash('sha256').update(`tool-call\n${at.url}\n`).update(at.argsJson).digest('hex'),
    callIndex: run.calls.length + 1,
    earlierCalls: run.calls.slice(-20).map((c) => ({ ...c, url: redact(c.url) })),
    scriptSha256: run.scriptSha256,
    script: redact(run.script),
  };
}

interface ScriptAnswer {
  data: unknown;
  error: unknown;
  status: number;
}

/** A tool error's words: its text parts, else its parts as JSON. */
function errorText(result: CallToolResult): string {
  const parts = Array.isArray(result.content) ? result.content : [];
  return parts.length > 0 && parts.every((p) => p.type === 'text')
    ? parts.map((p) => (p as { text: string }).text).join('\n')
    : JSON.stringify(parts).slice(0, 4000);
}

/**
 * A tool's result as a script gets it, in the shape of an API call's: `data` is the structured content when there
 * is some, else the text when every part is text, else the parts; a tool error is `error` (its text). Redacted,
 * then cut to `max` bytes of JSON, the cut said in the data itself.
 */
export function scriptResult(result: CallToolResult, redact: Redactor, max: number): ScriptAnswer {
  const clean = redactDeep(result, redact) as CallToolResult;
  if (clean.isError) return { data: null, error: { code: 'tool_error', message: errorText(clean).slice(0, 16_384) }, status: 200 };
  const parts = Array.isArray(clean.content) ? clean.content : [];
  const allText = parts.length > 0 && parts.every((p) => p.type === 'text');
  let data: unknown = clean.structuredContent ?? (allText ? parts.map((p) => (p as { text: string }).text).join('\n') : parts);
  const size = Buffer.byteLength(JSON.stringify(data) ?? '');
  if (size > max) data = cutNotice(typeof data === 'string' ? data : JSON.stringify(data), max, size);
  return { data, error: null, status: 200 };
}

/** A tool's result as a client calling it directly gets it: as the server gave it, redacted; over `max`, one text part, cut, saying so. */
export function clientResult(result: CallToolResult, redact: Redactor, max: number): CallToolResult {
  const clean = redactDeep(result, redact) as CallToolResult;
  const size = Buffer.byteLength(JSON.stringify(clean) ?? '');
  if (size <= max) return clean;
  const text = Array.isArray(clean.content) && clean.content.every((p) => p.type === 'text') ? errorText(clean) : JSON.stringify(clean.content);
  return { ...(clean.isError ? { isError: true } : {}), content: [{ type: 'text', text: cutNotice(text, max, size) }] };
}

/** The first `max` bytes of a text (whole characters), then what was cut. */
function cutNotice(text: string, max: number, size: number): string {
  const kept = Buffer.from(text)
    .subarray(0, max)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${kept}\n[Airlock cut this tool result: it was ${kb(size)}, over the ${kb(max)} cap for a tool result; ${kb(size - Buffer.byteLength(kept))} were cut]`;
}

function kb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}
