// Airlock's tools on a server of the 2026-07-28 revision (the v2 SDK's
// McpServer): the same registrars as the 2025 revision's servers, each call
// audited by the same runAudited. Over HTTP a modern server answers one
// request, so it is built with what is in reach at that moment; over stdio
// one serves the connection, and its tools are described again (or taken
// away) when what they describe changes, as a 2025 session's are. The caller
// is the one its request's credential and URL (or its pipe) name, never a
// name the client declares (that only labels).
import { z } from 'zod';
import {
  CLIENT_CAPABILITIES_META_KEY as CLIENT_CAPABILITIES,
  CLIENT_INFO_META_KEY as CLIENT_INFO,
  PROTOCOL_VERSION_META_KEY as PROTOCOL_VERSION,
  fromJsonSchema,
  type JsonSchemaType,
  type McpServer as ModernMcpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallerInfo } from '../approvals/types.ts';
import { runAudited, type AuditedTools, type AuditedToolsOptions, type ToolContext } from './auditedTools.ts';
import { declaresTasks, type ModernTasks } from './modernTasks.ts';
import { directToolsOf, type DirectTool } from './modernDirectCall.ts';
import { declaresFormElicitation } from './elicitApproval.ts';

/** The client's self-declared name and version, from the request's `_meta` (a label: it never grants). */
function declaredClient(envelope: Record<string, unknown> | undefined): { clientName?: string; clientVersion?: string; protocolVersion?: string } {
  const info = envelope?.[CLIENT_INFO] as { name?: unknown; version?: unknown } | undefined;
  const version = envelope?.[PROTOCOL_VERSION];
  return {
    ...(typeof version === 'string' ? { protocolVersion: version } : {}),
    ...(typeof info?.name === 'string' && info.name ? { clientName: info.name.slice(0, 100) } : {}),
    ...(typeof info?.version === 'string' && info.version ? { clientVersion: info.version.slice(0, 50) } : {}),
  };
}

/** Whether the request's client declared form elicitation (it may then be answered `input_required` with the approval's form). */
function canElicit(envelope: Record<string, unknown> | undefined): boolean {
  return declaresFormElicitation(envelope?.[CLIENT_CAPABILITIES] as { elicitation?: unknown } | undefined);
}

/** The request's multi-round-trip side: whether the client can be asked, and what a retried round brings back. */
function roundsOf(ctx: ServerContext): Pick<ToolContext, 'rounds'> {
  const state = ctx.mcpReq.requestState();
  return {
    rounds: {
      canElicit: canElicit(ctx.mcpReq.envelope as Record<string, unknown> | undefined),
      ...(ctx.mcpReq.inputResponses ? { responses: ctx.mcpReq.inputResponses } : {}),
      ...(state !== undefined ? { state } : {}),
    },
  };
}

/** A progress reporter when the request carries a progress token: each message counts one step up. */
function progressOf(ctx: ServerContext): { progress?: (message: string) => void } {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return {};
  let step = 0;
  return {
    progress: (message) =>
      void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } }).catch(() => undefined),
  };
}

type StandardWithJson = {
  '~standard': { validate: unknown; jsonSchema: { input(options: unknown): unknown; output(options: unknown): unknown } };
};

/** Each tool's schema as registered, by the shape (or schema) it was given: made, and written as JSON schema, once. */
const prepared = new WeakMap<object, StandardWithJson>();

/**
 * A tool's input (or output) schema for the v2 SDK, which writes every tool's JSON schema again for each tools/list
 * (~1 ms for Airlock's tools): a server here lives for one request, so the JSON schema is written once per schema and
 * kept; validation is zod's own.
 */
function preparedSchema(given: object): StandardWithJson {
  const known = prepared.get(given);
  if (known) return known;
  const schema = ('~standard' in given ? given : z.object(given as z.ZodRawShape)) as unknown as StandardWithJson;
  const standard = schema['~standard'];
  const written = new Map<string, unknown>();
  const once = (io: 'input' | 'output') => (options: unknown) => {
    const key = `${io} ${JSON.stringify(options)}`;
    if (!written.has(key)) written.set(key, standard.jsonSchema[io](options));
    return written.get(key);
  };
  const made: StandardWithJson = { ...schema, '~standard': { ...standard, jsonSchema: { input: once('input'), output: once('output') } } };
  prepared.set(given, made);
  return made;
}

export interface ModernToolsOptions extends AuditedToolsOptions {
  /** The JSON schemas loose tools (another server's) are listed and checked with, by tool name. */
  listedSchemas?(): ReadonlyMap<string, unknown>;
  /**
   * The one tool a request calls: the others are not registered (registering every tool was ~0.15 ms of each modern
   * request here, whose server answers that one request).
   */
  onlyTool?: string;
  /** The companion's tasks: a request that declares the Tasks extension may be answered with one. */
  tasks?: ModernTasks;
}

/** How a handler starts a task for this request's caller, when the request declares the extension. */
function tasksOf(ctx: ServerContext, callerKey: string, tasks: ModernTasks | undefined): Pick<ToolContext, 'startTask'> {
  if (!tasks || !declaresTasks(ctx)) return {};
  return { startTask: (statusMessage, work) => tasks.start(callerKey, statusMessage, work) as never };
}

/** A tool left unregistered: nothing to describe again or remove. */
const UNREGISTERED = { describe: () => undefined, remove: () => undefined };

/** The tools registry of one modern server, for the caller its request names. */
export function modernTools(
  server: ModernMcpServer,
  caller: Omit<CallerInfo, 'clientName' | 'clientVersion' | 'protocolVersion'>,
  options: ModernToolsOptions,
): AuditedTools {
  const direct = directToolsOf(server);
  /** Registers one tool with the SDK; `directly`: also in the server's table of tools called directly. */
  const add = (name: string, config: Parameters<AuditedTools['register']>[1], handler: Parameters<AuditedTools['register']>[2], directly: boolean) => {
    if (options.onlyTool !== undefined && name !== options.onlyTool) return UNREGISTERED;
    const inputSchema = preparedSchema(config.inputSchema as object);
    const outputSchema = config.outputSchema ? preparedSchema(config.outputSchema) : undefined;
    const registered = server.registerTool(
      name,
      {
        title: config.title,
        description: config.description,
        inputSchema: inputSchema as never,
        ...(outputSchema ? { outputSchema: outputSchema as never } : {}),
        annotations: config.annotations,
      },
      ((args: unknown, ctx: ServerContext) =>
        runAudited(name, args, handler, options, {
          caller: { ...caller, ...declaredClient(ctx.mcpReq.envelope as Record<string, unknown> | undefined) },
          signal: ctx.mcpReq.signal,
          ...progressOf(ctx),
          ...roundsOf(ctx),
          ...tasksOf(ctx, caller.key, options.tasks),
        })) as never,
    );
    // A plain call of one of Airlock's own tools is answered without the SDK (modernDirectCall.ts): the same schemas
    // and handler; no progress, round or task (such a request goes to the SDK).
    const entry: DirectTool | undefined = directly
      ? {
          input: inputSchema as never,
          ...(outputSchema ? { output: outputSchema as never } : {}),
          run: (args, call) =>
            runAudited(name, args, handler, options, {
              caller: { ...caller, ...declaredClient(call.envelope) },
              signal: call.signal,
              rounds: { canElicit: canElicit(call.envelope) },
            }),
        }
      : undefined;
    if (entry) direct.set(name, entry);
    return {
      describe({ title, description }: { title: string; description: string }) {
        if (registered.title === title && registered.description === description) return;
        registered.update({ title, description, annotations: { ...config.annotations, title } });
      },
      remove: () => {
        if (entry && direct.get(name) === entry) direct.delete(name);
        registered.remove();
      },
    };
  };
  const tools: AuditedTools = {
    ...(options.onlyTool !== undefined ? { only: options.onlyTool } : {}),
    // The 2025 revision's task-augmented calls; a modern client that declares the Tasks extension gets a task through
    // ToolContext.startTask instead (modernTasks.ts).
    taskTools: new Map(),
    registerLoose(name, config, handler) {
      // Listed with the schema its server gives (as a 2025 session lists it); any object when there is none. Another
      // server's tool is called through the SDK only (its result is that server's, checked by the SDK's schema).
      const schema = options.listedSchemas?.().get(name);
      const inputSchema = schema && typeof schema === 'object' ? fromJsonSchema(schema as JsonSchemaType) : z.looseObject({});
      return add(name, { ...config, inputSchema: inputSchema as never }, handler as never, false);
    },
    register: (name, config, handler) => add(name, config as never, handler as never, true),
  };
  return tools;
}
