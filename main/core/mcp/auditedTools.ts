// Where MCP tools are registered, and the one place their calls are audited:
// each tool is registered through `tools.register`, which builds the caller
// (bound to the HTTP session or the stdio process, never to the client's
// self-declared name), runs the handler and records the call in the audit
// store before its result leaves. A call that cannot be audited does not
// hand its result back.
import { httpSessionKey } from './sessionRegistry.ts';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { AnySchema, ZodRawShapeCompat, ShapeOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { z } from 'zod';
import type { CallerInfo, Elicit } from '../approvals/types.ts';
import { elicitThrough } from './elicitApproval.ts';
import { protocolVersionOf } from './agreedVersion.ts';
import type { TaskTool } from './toolTasks.ts';
import type { TaskWork } from './modernTasks.ts';
import { messageOf } from '../../../contract/values.ts';
import type { ClientTokenRef } from '../../../contract/approvals.ts';
import type { Telemetry, TraceParent } from '../telemetry/telemetry.ts';

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  caller: CallerInfo;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
  /** Asks the person through the client (MCP elicitation), when the client offers it on this connection. */
  elicit?: Elicit;
  /** Sends the client a progress notification with this message, when its request asked for progress (a progress token); in a task, the task's status message. */
  progress?: (message: string) => void;
  /** Set when the call runs as a task (the client polls it: no deadline to answer before). */
  task?: { id: string };
  /**
   * A 2026-07-28 request's multi-round-trip side: whether its client declared elicitation (it may be answered
   * `input_required`), and what a retried round brings back: the answers, and the state the companion sealed
   * (verified before the handler runs).
   */
  rounds?: { canElicit: boolean; responses?: Record<string, unknown>; state?: unknown };
  /**
   * A 2026-07-28 request that declares the Tasks extension: starts `work` as a task of this caller and returns the
   * tools/call's answer (a CreateTaskResult), which the handler returns as its result.
   */
  startTask?: (statusMessage: string, work: (task: TaskWork) => Promise<CallToolResult>) => CallToolResult;
  /** The call's span (telemetry on): a call it makes through the gate hangs below it. */
  trace?: TraceParent;
}

/** What a tool handler returns: the result, and what the audit record should say about it. */
export interface ToolOutcome {
  result: CallToolResult;
  /** `ok` or an error kind (defaults from `result.isError`). */
  outcome?: string;
  runId?: string;
  error?: string;
  /** What the call reached, when it is not the session's APIs (another MCP server: `mcp:<server>`). */
  profile?: string;
  /** Audit records of the call still being committed: the result waits for them as for its own record. */
  recorded?: Promise<unknown>;
}

/** One finished tool call, for the audit store (recorded before the result goes back). */
export interface ToolCallReport {
  tool: string;
  args: unknown;
  caller: CallerInfo;
  startedAt: string;
  durationMs: number;
  outcome: string;
  bytesOut: number;
  runId?: string;
  error?: string;
  profile?: string;
}

export interface ToolConfig<Shape extends ZodRawShapeCompat | AnySchema> {
  title: string;
  description: string;
  inputSchema: Shape;
  outputSchema?: ZodRawShapeCompat;
  annotations: ToolAnnotations;
  /** Task-augmented calls are served (MCP tasks): the client gets a task at once and polls it. */
  tasks?: boolean;
}

export interface AuditedTools {
  register<Shape extends ZodRawShapeCompat>(
    name: string,
    config: ToolConfig<Shape>,
    handler: (args: ShapeOutput<Shape>, ctx: ToolContext) => Promise<ToolOutcome>,
  ): RegisteredToolText;
  /** A tool whose arguments are another server's (any object, checked by that server): listed with `jsonSchema` (see listedSchemas). */
  registerLoose(
    name: string,
    config: Omit<ToolConfig<AnySchema>, 'inputSchema' | 'tasks'>,
    handler: (args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutcome>,
  ): RegisteredToolText;
  /** The tools registered with `tasks`, for serveToolTasks once every tool is registered. */
  readonly taskTools: Map<string, TaskTool>;
  /** The one tool this registry registers (a modern HTTP request's server, for the tool it calls); undefined: all. */
  readonly only?: string;
}

/** A registered tool's title and description, changeable while its server lives (clients are told: tools/list_changed). */
export interface RegisteredToolText {
  describe(text: { title: string; description: string }): void;
  /** Takes the tool away (clients are told). */
  remove(): void;
}

export interface AuditedToolsOptions {
  transport: 'stdio' | 'http';
  /** Called when each call finishes; the result is returned once this settles, and withheld if it throws. */
  report(report: ToolCallReport): void | Promise<unknown>;
  /** Called when a call starts (sessions count calls in flight). */
  onStart?(caller: CallerInfo): void;
  /** Where each call's span and duration go (telemetry on). */
  telemetry?: Telemetry;
}

/** The client token each HTTP session's server was opened with (absent: the companion's token, or stdio). */
const clientTokens = new WeakMap<McpServer, ClientTokenRef>();

/** Marks a session's server as opened with an HTTP client's own token: its callers carry it. */
export function bindClientToken(server: McpServer, token: ClientTokenRef): void {
  clientTokens.set(server, token);
}

/** The caller of a request: the HTTP session the server issued, the joined stdio connection, or this stdio process. */
export function callerOf(server: McpServer, transport: 'stdio' | 'http', sessionId: string | undefined): CallerInfo {
  const client = server.server.getClientVersion();
  const protocolVersion = protocolVersionOf(server);
  const clientToken = clientTokens.get(server);
  return {
    key: transport === 'http' ? httpSessionKey(sessionId) : `stdio:${sessionId ?? process.pid}`,
    transport,
    ...(client?.name ? { clientName: client.name } : {}),
    ...(client?.version ? { clientVersion: client.version } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(protocolVersion ? { protocolVersion } : {}),
    ...(clientToken ? { clientToken } : {}),
  };
}

/** What the SDK hands a tool handler besides its arguments (the part used here). */
interface ToolCallExtra {
  sessionId?: string;
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification(notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message: string };
  }): Promise<void>;
}

/** A progress reporter when the request carries a progress token: each message counts one step up. */
function progressOf(extra: ToolCallExtra): { progress?: (message: string) => void } {
  const token = extra._meta?.progressToken;
  if (token === undefined) return {};
  let step = 0;
  return {
    progress: (message) =>
      void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } }).catch(() => undefined),
  };
}

/**
 * Runs one tool call and records it in the audit before its result leaves: a call that fails is recorded and its
 * error thrown; a result that cannot be recorded is withheld (the client is told why). Both protocol revisions'
 * registries call it, so a call is audited the same whichever one a client speaks.
 */
export function runAudited(
  name: string,
  args: unknown,
  handler: (args: never, ctx: ToolContext) => Promise<ToolOutcome>,
  options: Pick<AuditedToolsOptions, 'report' | 'onStart' | 'telemetry'>,
  ctx: ToolContext,
): Promise<CallToolResult> {
  const telemetry = options.telemetry;
  if (!telemetry?.enabled) return auditedCall(name, args, handler, options, ctx);
  // The call's span: what its run calls through the gate hangs below it.
  return telemetry.request(
    { method: 'tools/call', tool: name, caller: ctx.caller },
    () => {
      const trace = telemetry.current();
      return auditedCall(name, args, handler, options, trace ? { ...ctx, trace } : ctx);
    },
    (result) => (result.isError ? 'tool_error' : undefined),
  );
}

async function auditedCall(
  name: string,
  args: unknown,
  handler: (args: never, ctx: ToolContext) => Promise<ToolOutcome>,
  options: Pick<AuditedToolsOptions, 'report' | 'onStart'>,
  ctx: ToolContext,
): Promise<CallToolResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const base = { tool: name, args, caller: ctx.caller, startedAt };
  options.onStart?.(ctx.caller);
  let outcome: ToolOutcome;
  try {
    outcome = await handler(args as never, ctx);
  } catch (error) {
    const message = messageOf(error);
    try {
      await options.report({ ...base, durationMs: performance.now() - started, outcome: 'error', bytesOut: 0, error: message });
    } catch {
      // The call failed anyway; the thrown error is what the client sees.
    }
    throw error;
  }
  const result = outcome.result;
  try {
    const reported = options.report({
      ...base,
      durationMs: performance.now() - started,
      outcome: outcome.outcome ?? (result.isError ? 'error' : 'ok'),
      bytesOut: Buffer.byteLength(JSON.stringify(result.content ?? [])),
      ...(outcome.runId ? { runId: outcome.runId } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
      ...(outcome.profile ? { profile: outcome.profile } : {}),
    });
    // The call's own records (a direct call's, written just before) commit with this one: both are waited for.
    await (outcome.recorded ? Promise.all([outcome.recorded, reported]) : reported);
  } catch (error) {
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: `The audit log could not record this call (${messageOf(error)}), so its result is withheld. The person running Airlock should check its log.`,
        },
      ],
    };
  }
  return result;
}

export function auditedTools(server: McpServer, options: AuditedToolsOptions): AuditedTools {
  const taskTools = new Map<string, TaskTool>();
  const tools: AuditedTools = {
    taskTools,
    registerLoose(name, config, handler) {
      return tools.register(name, { ...config, inputSchema: z.looseObject({}) as never }, handler as never);
    },
    register(name, config, handler) {
      const wrapped = (args: unknown, extra: ToolCallExtra, task?: { id: string; status(message: string): void }): Promise<CallToolResult> => {
        const progress = task ? { progress: task.status } : progressOf(extra);
        const elicit = elicitThrough(server);
        return runAudited(name, args, handler, options, {
          caller: callerOf(server, options.transport, extra.sessionId),
          signal: extra.signal,
          ...(elicit ? { elicit } : {}),
          ...progress,
          ...(task ? { task: { id: task.id } } : {}),
        });
      };
      const registered = server.registerTool(
        name,
        {
          title: config.title,
          description: config.description,
          inputSchema: config.inputSchema,
          ...(config.outputSchema ? { outputSchema: config.outputSchema } : {}),
          annotations: config.annotations,
        },
        wrapped as never,
      );
      if (config.tasks) {
        taskTools.set(name, {
          inputSchema: config.inputSchema as never,
          run: (args, extra, task) =>
            wrapped(args, { ...(extra as unknown as ToolCallExtra), signal: task.signal, _meta: {} }, { id: task.taskId, status: task.status }),
        });
      }
      return {
        describe({ title, description }) {
          if (registered.title === title && registered.description === description) return;
          registered.update({ title, description, annotations: { ...config.annotations, title } });
        },
        remove: () => registered.remove(),
      };
    },
  };
  return tools;
}
