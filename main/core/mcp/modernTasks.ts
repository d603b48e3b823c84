// The Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) for clients
// of the 2026-07-28 revision. A run that waits for a person is not answered
// "held" to a client that declares the extension on its request: it gets a
// task at once (resultType "task"), and tasks/get says "Waiting for your
// approval in Airlock: …" while the person decides, then carries the run's
// result. tasks/update is acknowledged (Airlock asks nothing through a task:
// the question is in its own prompt); tasks/cancel stops following the run
// (a run that waits for a person stays waiting, its request marked: the
// person may still decide it, as for a client that gave up).
//
// The tasks live in the companion, not in a server: over HTTP a server
// answers one request. Each task is its caller's (the credential and scope
// over HTTP, the pipe over stdio): any other caller is told there is no such
// task, exactly as for an id that never was, and the attempt is recorded.
// Ids are random UUIDs (122 bits). Tasks do not survive a restart (neither
// do held runs).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  CLIENT_CAPABILITIES_META_KEY as CLIENT_CAPABILITIES,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  type McpServer as ModernMcpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { messageOf } from '../../../contract/values.ts';
import { MAX_TASK_TTL_MS, TASK_POLL_MS } from './toolTasks.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** JSON-RPC's invalid params: what an unknown (or someone else's) task id is answered. */
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
/** How long a finished task is kept past its ttl when it ended late (a person decided near the end). */
const KEPT_AFTER_END_MS = 5 * 60_000;
/** At most this many tasks are kept; the oldest finished ones go first. */
const MAX_TASKS = 1_000;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** What a task tells its client (tasks/get, and the create result without `result`). */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: CallToolResult;
  /** A failed task's error (the run could not be followed to its end; a failing script is `completed`, `isError`). */
  error?: { code: number; message: string };
}

/** What the work behind a task gets: its cancellation, and how to say what it waits for (undefined: running). */
export interface TaskWork {
  signal: AbortSignal;
  status(message: string | undefined): void;
}

interface Task {
  view: TaskView;
  callerKey: string;
  stop: AbortController;
  expiresAt: number;
}

export interface ModernTaskOptions {
  now?: () => number;
}

/** A lookup's answer: the task as its caller sees it, none, or another caller's (answered as none, and recorded). */
export type TaskLookup = { view: TaskView } | 'none' | 'foreign';

/** Whether the request declares the Tasks extension (in its own `_meta`, as every 2026-07-28 request must). */
export function declaresTasks(ctx: ServerContext): boolean {
  const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES] as
    { extensions?: Record<string, unknown> } | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** The companion's tasks for 2026-07-28 clients, each bound to the caller that made it. */
export class ModernTasks {
  private readonly tasks = new Map<string, Task>();
  private readonly now: () => number;

  constructor(options: ModernTaskOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /** Starts `work` as a task of `callerKey`; returns what the tools/call is answered (a CreateTaskResult). */
  start(callerKey: string, statusMessage: string, work: (task: TaskWork) => Promise<CallToolResult>): TaskView & { resultType: 'task' } {
    this.sweep();
    const at = new Date(this.now()).toISOString();
    const task: Task = {
      view: { taskId: randomUUID(), status: 'working', statusMessage, createdAt: at, lastUpdatedAt: at, ttlMs: MAX_TASK_TTL_MS, pollIntervalMs: TASK_POLL_MS },
      callerKey,
      stop: new AbortController(),
      expiresAt: this.now() + MAX_TASK_TTL_MS,
    };
    this.tasks.set(task.view.taskId, task);
    const status = (message: string | undefined) => {
      if (task.view.status !== 'working') return;
      this.change(task, { status: 'working', ...(message !== undefined ? { statusMessage: message } : {}) });
    };
    void work({ signal: task.stop.signal, status }).then(
      (result) =>
        this.end(task, task.stop.signal.aborted ? { status: 'cancelled', statusMessage: 'cancelled by the client' } : { status: 'completed', result }),
      (error: unknown) =>
        this.end(
          task,
          task.stop.signal.aborted
            ? { status: 'cancelled', statusMessage: 'cancelled by the client' }
            : { status: 'failed', error: { code: INTERNAL_ERROR, message: messageOf(error) } },
        ),
    );
    return { resultType: 'task', ...this.copy(task.view, false) };
  }

  /** The task as `callerKey` sees it (with its result once it has one). */
  get(callerKey: string, taskId: string): TaskLookup {
    this.sweep();
    const task = this.tasks.get(taskId);
    if (!task) return 'none';
    if (task.callerKey !== callerKey) return 'foreign';
    return { view: this.copy(task.view, true) };
  }

  /** Stops following the task's run (idempotent on a finished one); what was found, as `get` says. */
  cancel(callerKey: string, taskId: string): TaskLookup {
    const found = this.get(callerKey, taskId);
    if (typeof found === 'string') return found;
    const task = this.tasks.get(taskId)!;
    if (task.view.status === 'working' || task.view.status === 'input_required') {
      task.stop.abort(new Error('the client cancelled the task'));
      this.end(task, { status: 'cancelled', statusMessage: 'cancelled by the client' });
    }
    return { view: this.copy(task.view, true) };
  }

  private change(task: Task, next: Partial<TaskView>): void {
    task.view = { ...task.view, ...next, lastUpdatedAt: new Date(this.now()).toISOString() };
  }

  private end(task: Task, next: Partial<TaskView>): void {
    if (task.view.status !== 'working' && task.view.status !== 'input_required') return;
    const { statusMessage: _, ...rest } = task.view;
    task.view = { ...rest, ...next, lastUpdatedAt: new Date(this.now()).toISOString() };
    task.expiresAt = Math.max(task.expiresAt, this.now() + KEPT_AFTER_END_MS);
  }

  private copy(view: TaskView, withResult: boolean): TaskView {
    const { result, ...rest } = view;
    return withResult && result ? { ...rest, result } : rest;
  }

  /** Forgets finished tasks past their time, and the oldest finished ones over the cap. */
  private sweep(): void {
    const now = this.now();
    const finished = (t: Task) => t.view.status !== 'working' && t.view.status !== 'input_required';
    for (const [id, task] of this.tasks) if (finished(task) && task.expiresAt <= now) this.tasks.delete(id);
    if (this.tasks.size < MAX_TASKS) return;
    for (const [id, task] of this.tasks) {
      if (this.tasks.size < MAX_TASKS) break;
      if (finished(task)) this.tasks.delete(id);
    }
  }
}

const taskParams = z.looseObject({ taskId: z.string() });

/**
 * Declares the extension on a modern server and answers tasks/get, tasks/update and tasks/cancel from `tasks` for
 * `callerKey`. A request that does not declare the extension is refused (-32021, as the extension requires); an id
 * that is not the caller's is answered as one that never was (-32602), and `foreign` is told (the companion records it).
 */
export function serveModernTasks(server: ModernMcpServer, tasks: ModernTasks, callerKey: string, foreign: (taskId: string, method: string) => void): void {
  server.server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } } as never);
  const answer = (found: TaskLookup, taskId: string, method: string): TaskView => {
    if (typeof found === 'object') return found.view;
    if (found === 'foreign') foreign(taskId, method);
    throw new ProtocolError(INVALID_PARAMS, `no task "${taskId.slice(0, 100)}": unknown, expired, or not this client's`);
  };
  const handle = (method: string, act: (taskId: string) => TaskLookup, reply: (view: TaskView) => object) =>
    server.server.setRequestHandler(method, { params: taskParams }, async (params, ctx) => {
      if (!declaresTasks(ctx)) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } as never);
      return reply(answer(act(params.taskId), params.taskId, method)) as never;
    });
  handle(
    'tasks/get',
    (id) => tasks.get(callerKey, id),
    (view) => view,
  );
  // Nothing is asked through a task (the person answers in Airlock's prompt): answers to unknown keys are ignored.
  handle(
    'tasks/update',
    (id) => tasks.get(callerKey, id),
    () => ({}),
  );
  handle(
    'tasks/cancel',
    (id) => tasks.cancel(callerKey, id),
    () => ({}),
  );
}
