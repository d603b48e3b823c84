// A ControlApi for component tests and screenshots without a core: handlers
// answer from in-memory state, and `emit` pushes events as the core would.
// `fakeApis` answers the APIs methods (apis.list, apis.enable, apis.disable,
// and the status with its `apis`) from a list of APIs it keeps, emitting
// `apis-changed` as the core does; `fakeStatus` is a status to start from.
import type { ControlMethod, ControlInput, ControlOutput } from '../../../contract/control.ts';
import { ControlError, type ControlApi } from '../../../contract/controlApi.ts';
import type { ControlEvent } from '../../../contract/events.ts';
import type { ApiView } from '../../../contract/apis.ts';
import type { Status } from '../../../contract/status.ts';

export type FakeHandlers = { [M in ControlMethod]?: (input: ControlInput<M>) => ControlOutput<M> | Promise<ControlOutput<M>> };

export interface FakeControlApi extends ControlApi {
  emit(events: ControlEvent[]): void;
  calls: { method: ControlMethod; input: unknown }[];
}

/** Handlers, or a function of the fake that returns them (for handlers that emit events). */
export function createFakeControlApi(handlers: FakeHandlers | ((fake: FakeControlApi) => FakeHandlers)): FakeControlApi {
  const listeners = new Set<(events: ControlEvent[]) => void>();
  const calls: { method: ControlMethod; input: unknown }[] = [];
  let table: FakeHandlers = {};
  const fake: FakeControlApi = {
    calls,
    async call(method, input) {
      calls.push({ method, input });
      const handler = table[method] as ((i: unknown) => unknown) | undefined;
      if (!handler) throw new ControlError('not_found', `the fake has no '${method}'`);
      return (await handler(input)) as never;
    },
    events(onBatch) {
      listeners.add(onBatch);
      return () => void listeners.delete(onBatch);
    },
    emit(events) {
      for (const l of listeners) l(events);
    },
  };
  table = typeof handlers === 'function' ? handlers(fake) : handlers;
  return fake;
}

/** A status with no client, no run and no API served; `overrides` replace its fields. */
export function fakeStatus(overrides: Partial<Status> = {}): Status {
  return {
    version: '0.0.0-fake',
    pid: 1,
    startedAt: new Date(0).toISOString(),
    uptimeSeconds: 0,
    dataDir: '/fake',
    memory: { rssBytes: 0, heapUsedBytes: 0 },
    apis: [],
    endpoints: { stdio: 'airlock stdio' },
    engine: 'fake',
    egress: 'gated',
    boundary: 'fake',
    killSwitch: false,
    runs: { active: 0, queued: 0, maxConcurrent: 4 },
    sessions: [],
    pendingApprovals: 0,
    keychain: { available: true, detail: 'fake' },
    secretStore: { kind: 'memory', osKeychain: false, plaintext: false, where: 'memory', available: true, detail: 'fake' },
    credential: { source: 'none' },
    ...overrides,
  };
}

/**
 * The APIs methods over a list the fake keeps, as the core answers them: enabling one makes it ready at once
 * (`ready: false` leaves it loading, `fail` makes it fail with that reason), disabling stops it, and each change
 * emits `apis-changed`. `status()` is `base` with `apis` (and the primary `profile`) from the list.
 */
export function fakeApis(
  fake: FakeControlApi,
  initial: ApiView[],
  options: { base?: Status; ready?: boolean; fail?: Record<string, string> } = {},
): { handlers: FakeHandlers; apis: ApiView[]; set(name: string, change: Partial<ApiView>): void } {
  const apis = initial.map((a) => ({ ...a }));
  const find = (name: string) => {
    const a = apis.find((x) => x.name === name);
    if (!a) throw new ControlError('not_found', `no API named '${name}'`);
    return a;
  };
  const changed = () => fake.emit([{ type: 'apis-changed' }]);
  const set = (name: string, change: Partial<ApiView>) => {
    Object.assign(find(name), change);
    changed();
  };
  const status = (): Status => {
    const served = apis.filter((a) => a.enabled && a.state !== 'disabled');
    const primary = served.find((a) => a.state === 'ready');
    const { profile: _profile, api: _api, ...base } = options.base ?? fakeStatus();
    return {
      ...base,
      ...(primary ? { profile: primary.name } : {}),
      ...(primary && options.base?.api ? { api: options.base.api } : {}),
      apis: served.map((a) => ({
        name: a.name,
        id: a.id,
        state: a.state as 'loading' | 'ready' | 'failed',
        ...(a.title !== undefined ? { title: a.title } : {}),
        ...(a.operations !== undefined ? { operations: a.operations } : {}),
        ...(a.error !== undefined ? { error: a.error } : {}),
      })),
    };
  };
  return {
    apis,
    set,
    handlers: {
      'apis.list': () => apis.map((a) => ({ ...a })).sort((a, b) => a.name.localeCompare(b.name)),
      'apis.enable': ({ name }) => {
        const reason = options.fail?.[name];
        const { error: _error, ...rest } = find(name);
        const next: ApiView = {
          ...rest,
          enabled: true,
          state: reason ? 'failed' : options.ready === false ? 'loading' : 'ready',
          ...(reason ? { error: reason } : {}),
        };
        apis.splice(apis.indexOf(find(name)), 1, next);
        changed();
        return { ...next };
      },
      'apis.disable': ({ name }) => {
        const { error: _error, ...rest } = find(name);
        const next: ApiView = { ...rest, enabled: false, state: 'disabled' };
        apis.splice(apis.indexOf(find(name)), 1, next);
        changed();
        return { ...next };
      },
      status,
    },
  };
}
