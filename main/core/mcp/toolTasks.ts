// Task-augmented tools/call (MCP 2025-11-25 tasks), for the tools that
// declare it (execute): a client that asks for a task gets one at once, and
// polls it (tasks/get, whose status message says "Waiting for your approval
// in Airlock: …" while a person decides), then fetches the result
// (tasks/result). A plain call of the same tool takes the ordinary path
// untouched — the SDK's own task tools would route every plain call through
// its polling loop. The SDK's Protocol answers tasks/get, tasks/result,
// tasks/list and tasks/cancel from the store; a cancel also stops the run
// behind the task (a run that waits for a person stays, its request marked).
// Like the tools/list cache, this reaches the SDK's handler table; if a
// future SDK hides it, the tool is listed without task support, and works.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import { messageOf } from '../../../contract/values.ts';

/** How long a task and its result are kept: at least 30 min (a person may take as long as the approval timeout), at most 1 h. */
export const DEFAULT_TASK_TTL_MS = 30 * 60_000;
export const MIN_TASK_TTL_MS = 30 * 60_000;
export const MAX_TASK_TTL_MS = 60 * 60_000;
/** What tasks/get suggests as a polling interval. */
export const TASK_POLL_MS = 1_000;

type Handler = (request: unknown, extra: unknown) => Promise<unknown>;

/** What a task tool's run gets: the task's id, its cancellation, and how to say what it waits for. */
export interface TaskRun {
  taskId: string;
  signal: AbortSignal;
  status(message: string): void;
}

export interface TaskTool {
  inputSchema: z.ZodRawShape;
  run(args: unknown, extra: Record<string, unknown>, task: TaskRun): Promise<CallToolResult>;
}

interface CallExtra {
  taskStore?: RequestTaskStore;
  [key: string]: unknown;
}

function handlerTable(server: McpServer): Map<string, Handler> | undefined {
  return (server.server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
}

/** Whether the server can serve tasks: built with a task store (and, by createMcpServer, the tasks capability). */
export function canServeTasks(server: McpServer): boolean {
  return handlerTable(server)?.has('tasks/get') === true;
}

/** Serves task-augmented calls of these tools, and lists them with `execution.taskSupport: 'optional'`. Call after the tools are registered. */
export function serveToolTasks(server: McpServer, tools: Map<string, TaskTool>): void {
  const handlers = handlerTable(server);
  const call = handlers?.get('tools/call');
  const list = handlers?.get('tools/list');
  const cancel = handlers?.get('tasks/cancel');
  if (!handlers || !call || !list || !cancel || !canServeTasks(server)) return;
  const running = new Map<string, AbortController>();

  handlers.set('tools/list', async (request, extra) => {
    const answer = (await list(request, extra)) as { tools: { name: string; execution?: unknown }[] };
    return { ...answer, tools: answer.tools.map((t) => (tools.has(t.name) ? { ...t, execution: { taskSupport: 'optional' } } : t)) };
  });

  handlers.set('tools/call', async (request, extra) => {
    const params = (request as { params: { name: string; arguments?: unknown; task?: { ttl?: number } } }).params;
    const tool = tools.get(params.name);
    const store = (extra as CallExtra).taskStore;
    if (!params.task || !tool || !store) return call(request, extra);
    const parsed = z.object(tool.inputSchema).safeParse(params.arguments ?? {});
    if (!parsed.success) return call(request, extra); // The ordinary path answers with the SDK's own validation error.
    const ttl = Math.min(Math.max(params.task.ttl ?? DEFAULT_TASK_TTL_MS, MIN_TASK_TTL_MS), MAX_TASK_TTL_MS);
    const task = await store.createTask({ ttl, pollInterval: TASK_POLL_MS });
    const stop = new AbortController();
    running.set(task.taskId, stop);
    const status = (message: string) => void store.updateTaskStatus(task.taskId, 'working', message).catch(() => undefined);
    void tool
      .run(parsed.data, extra as Record<string, unknown>, { taskId: task.taskId, signal: stop.signal, status })
      .then(
        (result) => store.storeTaskResult(task.taskId, 'completed', result),
        (error: unknown) =>
          store.storeTaskResult(task.taskId, 'failed', { content: [{ type: 'text', text: messageOf(error) }], isError: true } satisfies CallToolResult),
      )
      // A cancelled task is terminal: its late result has nowhere to go.
      .catch(() => undefined)
      .finally(() => running.delete(task.taskId));
    return { task };
  });

  handlers.set('tasks/cancel', async (request, extra) => {
    const answer = await cancel(request, extra);
    const id = (request as { params: { taskId: string } }).params.taskId;
    running.get(id)?.abort('the client cancelled the task');
    return answer;
  });
}
