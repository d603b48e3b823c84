// Narrow services for the control handlers' unit tests (test/unit/handlers/):
// each is either the real small class (LogBuffer + logger, EventHub,
// SessionRegistry, ExecutionCaps) or a fake typed against its interface in
// main/core/runtime/services.ts, so a test that compiles proves the group
// needs only the services its `Pick<Services, …>` names. `invoke` calls a
// handler as the dispatcher does: the input parsed by the contract (defaults
// applied), the output checked against it — and returned as the handler gave
// it, so a test can also see a field the contract would strip.
import type { ApiCallApprovalRequest } from '../../main/core/approvals/types.ts';
import type { ApiCallRecord } from '../../main/core/audit/types.ts';
import assert from 'node:assert/strict';
import type { z } from 'zod';
import { controlContract, type ControlCaller, type ControlInput, type ControlMethod } from '../../contract/control.ts';
import type { ControlHandlers } from '../../main/core/control/dispatch.ts';
import { dataPaths } from '../../main/core/config/dataDir.ts';
import type { EngineName, NetworkMode } from '../../main/core/config/settings.ts';
import { resolveSettings } from '../../main/core/config/resolveSettings.ts';
import { createLogger } from '../../main/core/log/logger.ts';
import { LogBuffer } from '../../main/core/log/logBuffer.ts';
import { buildCatalogue, type ApiOperation } from '../../main/core/openapi/catalogue.ts';
import { OperationSearch } from '../../main/core/search/operationSearch.ts';
import type { Profile } from '../../main/core/profiles/profile.ts';
import { isMutation } from '../../main/core/egress/classify.ts';
import type { EgressGate } from '../../main/core/egress/egressGate.ts';
import type { Credentials, CredentialState } from '../../main/core/secrets/credentials.ts';
import type { SecretStore } from '../../main/core/secrets/secretStore.ts';
import { describeSecretStore } from '../../main/core/secrets/secretStoreView.ts';
import { apiKeyEnv } from '../../main/core/secrets/resolveCredential.ts';
import type { SandboxEngine } from '../../main/core/sandbox/engine.ts';
import type { ExecuteService } from '../../main/core/execute/executeService.ts';
import { ExecutionCaps } from '../../main/core/execute/caps.ts';
import type { LoadedApi } from '../../main/core/runtime/loadApi.ts';
import { ServedApis } from '../../main/core/runtime/servedApis.ts';
import { UpstreamServers } from '../../main/core/upstream/upstreamServers.ts';
import type { ToolGate } from '../../main/core/upstream/toolGate.ts';
import { silentLogger } from '../../main/core/log/logger.ts';
import type { CompanionInfo, Engines, EngineState, Keys, LiveSettings, Logs, Runs } from '../../main/core/runtime/services.ts';
import { createLiveSettings } from '../../main/core/runtime/liveSettings.ts';
import { AirlockError, type ErrorKind } from '../../main/core/util/errors.ts';
import { clientShape, clientShapeJson } from '../../main/core/sandbox/guestClient.ts';

export const CALLER: ControlCaller = { by: 'alice via test', channel: 'internal' };

/** What a companion is, with its files under `dir`. */
export function companionInfo(dir: string, startedAt = new Date()): CompanionInfo {
  return { version: '0.0.0-test', mode: 'serve', startedAt, paths: dataPaths(dir) };
}

/** The real logger and ring buffer, writing nowhere else. */
export function testLogs(): Logs {
  const buffer = new LogBuffer({ capacity: 1000 });
  return { logger: createLogger({ buffer, sink: () => {}, source: 'core' }), buffer, redact: (s) => s };
}

/** The messages the buffer holds at `level` (all levels when omitted). */
export const logged = (logs: Logs, level?: 'debug' | 'info' | 'warn' | 'error'): string[] =>
  logs.buffer
    .entries()
    .filter((e) => !level || e.level === level)
    .map((e) => e.message);

export interface TestSettings extends LiveSettings {
  /** The keys of each change put into effect, in order. */
  readonly applied: string[][];
}

/** The settings in effect as resolveSettings makes them from flags, env and settings.json; each change applied is recorded. */
export function liveSettings(
  dir: string,
  inputs: { flags?: Record<string, unknown>; env?: Record<string, string>; file?: Record<string, unknown> } = {},
): TestSettings {
  const resolved = resolveSettings({ flags: { dataDir: dir, ...inputs.flags }, env: inputs.env ?? {}, file: inputs.file ?? {}, defaultDataDir: dir });
  const applied: string[][] = [];
  const settings = createLiveSettings(resolved);
  settings.onApplied((keys) => void applied.push([...keys]));
  return Object.assign(settings, { applied });
}

/** A small API: reads, a create, a delete, and a read the profile marks as a mutation. */
export const SHOP_DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Shop', version: '2.1' },
  servers: [{ url: 'https://shop.example.test/v1' }],
  paths: {
    '/orders': {
      get: { operationId: 'orders.list', summary: 'List orders', responses: { '200': { description: 'ok' } } },
      post: { operationId: 'orders.create', summary: 'Place an order', responses: { '201': { description: 'created' } } },
    },
    '/orders/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      delete: { operationId: 'orders.delete', summary: 'Cancel an order', responses: { '204': { description: 'gone' } } },
    },
    '/products': {
      get: { operationId: 'products.list', summary: 'List products', deprecated: true, responses: { '200': { description: 'ok' } } },
    },
    '/reports/refresh': {
      get: { operationId: 'reports.refresh', summary: 'Rebuild the sales report', responses: { '200': { description: 'ok' } } },
    },
  },
};

export function shopProfile(overrides: Partial<Profile> = {}): Profile {
  return {
    name: 'shop',
    spec: 'https://shop.example.test/openapi.json',
    policy: 'ask',
    readOnly: false,
    allowPrivateNetwork: false,
    mutations: ['reports.refresh'],
    origin: 'file',
    ...overrides,
  };
}

/** The loaded API of `profile` over the Shop document: a real catalogue and search index, no network. */
export function shopApi(profile: Profile = shopProfile()): LoadedApi {
  const catalogue = buildCatalogue(structuredClone(SHOP_DOCUMENT) as never);
  return {
    profile,
    id: profile.name,
    baseUrl: 'https://shop.example.test/v1',
    auth: { type: 'bearer' },
    catalogue,
    search: new OperationSearch(catalogue),
    origin: { kind: 'url', location: profile.spec },
    readyMs: 1,
    cache: 'off',
    clientNames: ['api'],
    shape: clientShape(clientShapeJson(catalogue.operations)),
  };
}

/** The gate's classification only; a call through it is a test bug. */
export function fakeGate(api: Pick<LoadedApi, 'profile'>): EgressGate {
  return {
    call: () => Promise.reject(new Error('the gate makes no call in handler tests')),
    isMutation: (op: ApiOperation) => isMutation(op, api.profile),
    redactor: () => Promise.reject(new Error('no redactor in handler tests')),
  };
}

export interface TestCredentials extends Credentials {
  /** How often the cache was invalidated. */
  readonly invalidations: number;
}

export function fakeCredentials(state: CredentialState = { source: 'none' }, profile = 'custom'): TestCredentials {
  let invalidations = 0;
  return {
    get: () => Promise.resolve(undefined),
    state,
    keychain: { available: true, detail: 'in memory' },
    secretStore: describeSecretStore({ kind: 'memory', probe: { available: true, detail: 'in memory' } }),
    keyEnv: apiKeyEnv(profile),
    invalidate: () => void invalidations++,
    get invalidations() {
      return invalidations;
    },
  };
}

/** Keys over a store, whose `invalidate` names the profiles it was asked for and invalidates the credentials. */
export function fakeKeys(store: SecretStore, credentials: TestCredentials = fakeCredentials()): Keys & { credentials: TestCredentials; invalidated: string[] } {
  const invalidated: string[] = [];
  return {
    store,
    credentials,
    invalidated,
    invalidate(profile) {
      invalidated.push(profile);
      credentials.invalidate();
    },
  };
}

/**
 * The served set of a handler test: `api` (with a fake gate and credentials) served as the primary API; any other
 * profile enabled later fails to load (no network in handler tests), with that reason.
 */
export async function servedApisOf(api: LoadedApi): Promise<ServedApis> {
  const apis = new ServedApis({
    open: async (profile) => {
      if (profile.name !== api.profile.name) throw new Error('no network in handler tests');
      return { api, credentials: fakeCredentials({ source: 'none' }, api.profile.name), gate: fakeGate(api), close: async () => undefined };
    },
    logger: testLogs().logger,
  });
  await apis.start([api.profile], api.profile);
  return apis;
}

export interface TestEngines extends Engines {
  /** Each switchTo call's choice, in order. */
  readonly switches: Parameters<Engines['switchTo']>[0][];
}

/** No other MCP server is configured. */
export function noUpstream(): UpstreamServers {
  return new UpstreamServers({
    entries: () => [],
    pins: { get: () => undefined, accept: () => Promise.reject(new Error('no server')) },
    launch: () => Promise.reject(new Error('no server')),
    logger: silentLogger,
  });
}

/** A tool gate with no server behind it: every call is refused. */
export function noToolGate(): ToolGate {
  const refusal = { data: null, error: { code: 'airlock_unknown_server', message: 'no MCP server' }, status: 0 };
  return { call: async () => refusal, callDirect: async () => ({ isError: true, content: [{ type: 'text', text: 'no MCP server' }] }) };
}

/** The engine state is what the last switchTo chose; nothing runs. */
export function fakeEngines(initial: { engine: EngineName; network: NetworkMode; banner?: string } = { engine: 'quickjs', network: 'executor' }): TestEngines {
  let state: EngineState = { ...initial, engineBoundary: `${initial.engine} (test)`, boundary: `${initial.engine} with egress ${initial.network} (test)` };
  const switches: Parameters<Engines['switchTo']>[0][] = [];
  const engine: SandboxEngine = {
    name: initial.engine,
    describeBoundary: () => state.boundary,
    run: () => Promise.reject(new Error('no runs in handler tests')),
    close: () => Promise.resolve(),
  };
  return {
    engine,
    state: () => state,
    switchTo: async (choice) => {
      switches.push(choice);
      state = {
        engine: choice.engine,
        network: choice.network,
        engineBoundary: `${choice.engine} (test)`,
        boundary: `${choice.engine} with egress ${choice.network} (test)`,
        ...(choice.network === 'none' ? { banner: `WARNING: ${choice.engine} with egress none (test)` } : {}),
      };
    },
    switches,
  };
}

/** Real caps; an execute service that must not be called. */
export function fakeRuns(maxConcurrent = 4): Runs {
  const unused = (): never => {
    throw new Error('no runs in handler tests');
  };
  const execute: ExecuteService = {
    execute: unused,
    resume: unused,
    callerGone: unused,
    stopAll: unused,
  };
  return { execute, caps: new ExecutionCaps({ maxConcurrent, queueSize: 8, queueTimeoutMs: 1000, perCallerConcurrent: 2 }) };
}

/**
 * Calls `method` as the dispatcher would: the input parsed by the contract (a bad input fails the test), the
 * output checked against it. Returns what the handler returned, before the contract strips anything.
 */
export async function invoke<M extends ControlMethod>(
  handlers: Partial<ControlHandlers>,
  method: M,
  input: ControlInput<M>,
  caller: ControlCaller = CALLER,
): Promise<z.input<(typeof controlContract)[M]['output']>> {
  const handler = handlers[method] as ((i: unknown, c: ControlCaller) => unknown) | undefined;
  assert.ok(handler, `no handler for ${method}`);
  const spec = controlContract[method] as { input: z.ZodType; output: z.ZodType };
  const parsed = spec.input.safeParse(input);
  assert.ok(parsed.success, `${method}: the test's input is outside the contract: ${parsed.error?.message}`);
  const result = await handler(parsed.data, caller);
  const output = spec.output.safeParse(result);
  assert.ok(output.success, `${method} returned a value outside the contract: ${output.error?.message}`);
  return result as z.input<(typeof controlContract)[M]['output']>;
}

/** An assert.rejects check: an AirlockError of this kind whose message matches. */
export function airlockError(kind: ErrorKind, message?: RegExp): (error: unknown) => true {
  return (error) => {
    assert.ok(error instanceof AirlockError, `expected an AirlockError, got ${String(error)}`);
    assert.equal(error.kind, kind, `kind of "${error.message}"`);
    if (message) assert.match(error.message, message);
    return true;
  };
}

/** A held POST of the Shop API, as the gate puts it to the broker; `overrides` change what a test needs. */
export function mutationRequest(overrides: Partial<ApiCallApprovalRequest> = {}): ApiCallApprovalRequest {
  return {
    kind: 'api-call',
    runId: 'run-1',
    caller: { key: 'http:s1', transport: 'http', clientName: 'claude-code', clientVersion: '2.0' },
    profile: 'shop',
    reason: 'mutation',
    rule: 'profile shop policy "ask": POST changes data',
    operationId: 'orders.create',
    call: 'api.orders.create',
    method: 'POST',
    pathTemplate: '/orders',
    url: 'https://shop.example.test/v1/orders',
    query: {},
    headers: [],
    bodyPreview: '{"sku":"A-1"}',
    requestHash: 'a'.repeat(64),
    callIndex: 1,
    earlierCalls: [],
    scriptSha256: 'b'.repeat(64),
    script: 'await api.orders.create({ body: { sku: "A-1" } })',
    ...overrides,
  };
}

/** An API call of the shop API as the gate records it: a read of orders.list that answered 200. */
export function shopApiCall(overrides: Partial<ApiCallRecord> = {}): ApiCallRecord {
  return {
    runId: 'r1',
    callerKey: 'http:s1',
    profile: 'shop',
    operationId: 'orders.list',
    method: 'GET',
    url: 'https://shop.example.test/v1/orders',
    status: 200,
    durationMs: 30,
    bytes: 120,
    decision: 'read',
    startedAt: new Date().toISOString(),
    ...overrides,
  };
}
