// The one narrow interface every sandbox engine implements (QuickJS in a
// worker, a Node subprocess, a Deno subprocess). An engine runs the model's
// code with nothing but the API client and a console; every API call leaves
// the sandbox through `callApi`, which is the egress gate's business. The
// engine owns the caps it can enforce: deadline, memory, stack, output.

import type { EngineName } from '../config/settings.ts';
export type { EngineName };

/** One method of the in-sandbox client: `api.<callPath…>(args)`. */
export interface ClientOperation {
  operationId: string;
  callPath: string[];
}

/**
 * A client's tree, prepared once per API: JSON text in which each namespace is an object of its children and each
 * method is its operation id (`{"repos":{"get":"repos/get"}}`). A run builds only what its code touches from it.
 */
export interface ClientShape {
  /** Equal keys mean equal trees (an engine that keeps trees between runs keys them by it). */
  key: string;
  json: string;
  /** Its top-level names. */
  top: readonly string[];
}

/** One tree of a run's client and the globals it is reached by. */
export interface ClientRoot {
  shape: ClientShape;
  /** Put before each operation id of the tree (`github:`), so the gate knows whose call it is. */
  idPrefix: string;
  /** The globals bound to it (`api`, the API's name and alias; `mcp`): the first labels its methods (`api.events.list`). */
  globals: string[];
  /** An API the run cannot call (still loading, or failed to load): every name under its globals is a method that answers this error, as a value; it has no tree. */
  unavailable?: { code: string; message: string };
}

/**
 * What a run's client is: its roots (one per API it reaches, and one for other MCP servers' tools). A manifest by
 * operations (every method listed) is the short form tests and small callers write: its globals are bound to the
 * whole tree, and each of its namespaces (a child of the root) to a global of its own name.
 */
export type ClientManifest =
  | { roots: ClientRoot[] }
  | {
      operations: ClientOperation[];
      /** Global names bound to the whole client: `api`, the API's name and its alias (e.g. `oa`). */
      globals: string[];
      /** Children of the client's root each bound to a global of its own name (`github.repos.get`). */
      namespaces?: string[];
    };

/** What sandboxed code passes to `api.ns.op({ path, query, body, headers, cookies })`. */
export interface ApiCallRequest {
  operationId: string;
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string>;
  /** The operation's cookie parameters, by name (the gate writes the Cookie header). */
  cookies?: Record<string, unknown>;
}

/** What `api.ns.op(...)` resolves to. It never rejects on an HTTP error. */
export interface ApiCallResult {
  data: unknown;
  error: unknown;
  status: number;
  /** Response headers (credential scrubbed, no set-cookie); absent when the gate refused the call. */
  headers?: Record<string, string>;
}

export type ConsoleLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';

export interface ConsoleEntry {
  level: ConsoleLevel;
  text: string;
}

export interface RunLimits {
  /** Wall-clock budget of the code's own time (time paused for a human does not count). */
  timeoutMs: number;
  /** Hard cap on the sandbox's memory. */
  memoryBytes: number;
  /** Cap on the serialised result plus console output. */
  outputBytes: number;
  /** Cap on the guest's stack, where the engine has one. */
  stackBytes?: number;
}

/** Given to `callApi` so the host can stop the clock while a human decides. */
export interface RunControl {
  /** Runs `wait` with the run's deadline paused; the clock resumes after it settles. */
  whilePaused<T>(wait: () => Promise<T>): Promise<T>;
}

export interface RunRequest {
  runId: string;
  /** The body of an async function: it may `await` and must `return` a JSON-serialisable value. */
  code: string;
  client: ClientManifest;
  limits: RunLimits;
  /** Every API call of the run goes through here (the egress gate). Never rejects. */
  callApi(request: ApiCallRequest, control: RunControl): Promise<ApiCallResult>;
  /** Console lines as they happen (the live log), besides the copy in the outcome. */
  onConsole?(entry: ConsoleEntry): void;
  /** Aborts the run (client cancelled, server shutting down). */
  signal?: AbortSignal;
}

export type RunErrorKind =
  | 'syntax' // the code does not parse
  | 'runtime' // the code threw
  | 'timeout'
  | 'memory'
  | 'stack'
  | 'output' // result or console output over the cap
  | 'aborted'
  | 'internal'; // the engine itself failed

export interface RunError {
  kind: RunErrorKind;
  /** Clean, one paragraph, no host paths. */
  message: string;
  /** Frames that point at lines of the caller's code (`execute.js:3:7`), never at host files. */
  stack?: string;
}

export type RunOutcome =
  | { ok: true; value: unknown; console: ConsoleEntry[]; consoleTruncated: boolean; durationMs: number }
  | { ok: false; error: RunError; console: ConsoleEntry[]; consoleTruncated: boolean; durationMs: number };

export interface SandboxEngine {
  readonly name: EngineName;
  /** What the engine enforces, in words a model and a person can check (goes into the execute tool description). */
  describeBoundary(): string;
  run(request: RunRequest): Promise<RunOutcome>;
  /** Gets ready for a run soon (an engine that starts lazily starts now, in the background); a no-op when ready. */
  warmUp?(): void;
  close(): Promise<void>;
}
