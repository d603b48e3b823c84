// A ControlApi for component tests and screenshots without a core: handlers
// answer from in-memory state, and `emit` pushes events as the core would.
// `fakeApis` answers the APIs methods (apis.list, apis.enable, apis.disable,
// and the status with its `apis`) from a list of APIs it keeps, emitting
// `apis-changed` as the core does; `fakeServers` answers the servers methods
// (servers.list|review|accept|setEnabled|restart|setPolicy|add|remove|
// importable|import) the same way, emitting `servers-changed`; `fakeStatus`
// is a status to start from.
import type { ControlMethod, ControlInput, ControlOutput } from '../../contract/control.ts';
import { ControlError, type ControlApi } from '../../contract/controlApi.ts';
import type { ControlEvent } from '../../contract/events.ts';
import type { ApiView } from '../../contract/apis.ts';
import type { Status } from '../../contract/status.ts';
import type { ServerReview, ServerView } from '../../contract/servers.ts';
import { SERVER_NAME } from '../../contract/names.ts';
import { messageOf } from '../../contract/values.ts';

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

type FakeTool = Omit<ServerReview['tools'][number], 'effective' | 'policy'>;
type ImportableClient = ControlOutput<'servers.importable'>[number];
/** A client's server as the fake's import sees it: its entry in the client's file (values written inline included). */
export type FakeClientServer = ImportableClient['servers'][number] & { raw: Record<string, unknown> };
export type FakeClient = Omit<ImportableClient, 'servers'> & { servers: FakeClientServer[]; afterwards?: string };
type Policy = ServerReview['tools'][number]['effective'];

/** A tool's definition as the fake pins it and diffs it (pretty JSON). */
const definitionText = (t: FakeTool) => JSON.stringify({ name: t.name, description: t.description, kind: t.kind, inputSchema: t.inputSchema }, null, 2) + '\n';

/** A unified diff of two texts, every old line removed and every new one added (enough for a screen to show). */
function wholeDiff(tool: string, before: string, after: string): string {
  const lines = (text: string, sign: string) =>
    text
      ? text
          .replace(/\n$/, '')
          .split('\n')
          .map((l) => sign + l)
      : [];
  const old = lines(before, '-');
  const now = lines(after, '+');
  return [
    `--- ${tool} (accepted)`,
    `+++ ${tool} (now)`,
    `@@ -${old.length ? 1 : 0},${old.length} +${now.length ? 1 : 0},${now.length} @@`,
    ...old,
    ...now,
    '',
  ].join('\n');
}

/** A short stable digest of a text (not cryptographic: the fake only compares what it gave out). */
function digestOf(text: string): string {
  let h = 5381;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 33) ^ text.charCodeAt(i)) >>> 0;
  return `fake-${h.toString(16)}-${text.length}`;
}

/**
 * The servers methods over servers the fake keeps, as the core answers them: a review starts a server (connected
 * at once, or failed with `fail`'s reason), accepting names the digest of what was shown (a different one is a
 * conflict), a policy is the tool's, else the server's default, else by the tool's kind; each change emits
 * `servers-changed`. `tools` are each server's tools as it lists them now, `accepted` what a person accepted.
 */
export function fakeServers(
  fake: FakeControlApi,
  initial: ServerView[],
  tools: Record<string, FakeTool[]>,
  options: {
    accepted?: Record<string, FakeTool[]>;
    policies?: Record<string, Record<string, Policy>>;
    fail?: Record<string, string>;
    /** The servers each client runs itself, for servers.importable and servers.import. */
    clients?: FakeClient[];
  } = {},
): {
  handlers: FakeHandlers;
  servers: ServerView[];
  tools: Record<string, FakeTool[]>;
  clients: FakeClient[];
  set(name: string, change: Partial<ServerView>): void;
} {
  const servers = initial.map((s) => ({ ...s }));
  const clients = (options.clients ?? []).map((c) => ({ ...c, servers: c.servers.map((s) => ({ ...s })) }));
  const accepted: Record<string, FakeTool[]> = { ...options.accepted };
  const policies: Record<string, Record<string, Policy>> = { ...options.policies };
  const find = (name: string) => {
    const s = servers.find((x) => x.name === name);
    if (!s) throw new ControlError('not_found', `no MCP server named '${name}'`);
    return s;
  };
  const changed = () => fake.emit([{ type: 'servers-changed' }]);
  const set = (name: string, change: Partial<ServerView>) => {
    Object.assign(find(name), change);
    changed();
  };
  const now = (name: string) => tools[name] ?? [];
  const digest = (name: string) => digestOf(now(name).map(definitionText).join(''));
  const reviewOf = (name: string): ServerReview => {
    const s = find(name);
    const before = new Map((accepted[name] ?? []).map((t) => [t.name, definitionText(t)]));
    const after = new Map(now(name).map((t) => [t.name, definitionText(t)]));
    const changes: ServerReview['changes'] = [];
    for (const [tool, text] of after) {
      const was = before.get(tool);
      if (was === undefined) changes.push({ tool, change: 'added', diff: wholeDiff(tool, '', text) });
      else if (was !== text) changes.push({ tool, change: 'changed', diff: wholeDiff(tool, was, text) });
    }
    for (const [tool, was] of before) if (!after.has(tool)) changes.push({ tool, change: 'removed', diff: wholeDiff(tool, was, '') });
    changes.sort((a, b) => a.tool.localeCompare(b.tool));
    const own = policies[name] ?? {};
    return {
      name,
      tools: now(name).map((t) => ({
        ...t,
        effective: own[t.name] ?? s.defaultPolicy ?? (t.kind === 'read-only' ? 'allow' : 'ask'),
        ...(own[t.name] ? { policy: own[t.name] } : {}),
      })),
      state: !accepted[name] ? 'unreviewed' : changes.length === 0 ? 'accepted' : 'changed',
      changes,
      digest: digest(name),
    };
  };
  /** Started (or failed to start), as a review or a restart does. */
  const start = (name: string) => {
    const s = find(name);
    if (!s.enabled) throw new ControlError('bad_input', `MCP server ${name} is disabled`);
    const reason = options.fail?.[name];
    const { reason: _reason, toolCount: _count, ...rest } = s;
    const next: ServerView = reason
      ? { ...rest, state: 'failed', reason }
      : { ...rest, state: 'connected', toolCount: now(name).length, review: reviewOf(name).state };
    servers.splice(servers.indexOf(s), 1, next);
    changed();
    if (reason) throw new ControlError('unavailable', `MCP server ${name} ${reason}`);
    return next;
  };
  /** Its view with the review as the core says it: compared while it runs, absent when accepted and not running. */
  const view = (name: string): ServerView => {
    const { review: _review, ...s } = find(name);
    return { ...s, ...(s.state === 'connected' ? { review: reviewOf(name).state } : accepted[name] ? {} : { review: 'unreviewed' as const }) };
  };
  /** Added as the core adds it: configured, its tools not reviewed; `stored`: its secrets came with it (pasted values). */
  const add = (name: string, transport: ServerView['transport'], target: string, secrets: string[], stored: boolean): ServerView => {
    if (!SERVER_NAME.test(name)) throw new ControlError('bad_input', `'${name}' is not a server name: lowercase letters, digits, - and _, at most 30`);
    if (servers.some((x) => x.name === name))
      throw new ControlError('conflict', `a server named '${name}' exists already`, `remove it first (airlock servers remove ${name}), or pick another name`);
    const view: ServerView = {
      name,
      transport,
      target,
      enabled: true,
      state: 'configured',
      stderr: [],
      review: 'unreviewed',
      secrets: secrets.map((n) => ({ name: n, set: stored })),
    };
    servers.push(view);
    servers.sort((a, b) => a.name.localeCompare(b.name));
    tools[name] ??= [];
    changed();
    return { ...view };
  };
  /** A client entry as a server: a command (its `env` values are secrets) or a URL (its `headers`). */
  const fromRaw = (name: string, raw: Record<string, unknown>): ServerView => {
    const values = (v: unknown) => Object.keys(typeof v === 'object' && v !== null ? v : {});
    if (typeof raw.command === 'string') {
      if (/[\\/]/.test(raw.command) && !raw.command.startsWith('/'))
        throw new ControlError(
          'bad_input',
          `the pasted entry cannot be added: its command ${JSON.stringify(raw.command)} is a relative path: give an absolute path, or a command found on PATH`,
        );
      const args = Array.isArray(raw.args) ? raw.args.map(String) : [];
      return add(name, 'stdio', [raw.command, ...args].join(' '), values(raw.env), true);
    }
    if (typeof raw.url === 'string') return add(name, 'http', raw.url, values(raw.headers), true);
    throw new ControlError('bad_input', 'the pasted entry cannot be added: it has neither a command nor a URL');
  };
  /** The client's file as a diff: the entries going out, Airlock's coming in. */
  const fileDiff = (client: FakeClient, going: FakeClientServer[]) =>
    [
      `--- ${client.file ?? client.label}`,
      `+++ ${client.file ?? client.label}`,
      '@@ -1,4 +1,4 @@',
      ' {',
      '   "mcpServers": {',
      ...going.map((s) => `-    ${JSON.stringify(s.from)}: ${JSON.stringify({ ...s.raw, ...(s.secrets.length > 0 ? { env: '…' } : {}) })},`),
      '+    "airlock": { "command": "/usr/local/bin/airlock", "args": ["stdio"] }',
      '   }',
      ' }',
      '',
    ].join('\n');
  return {
    servers,
    tools,
    clients,
    set,
    handlers: {
      'servers.add': ({ name, entry, json }) => {
        if ((entry === undefined) === (json === undefined))
          throw new ControlError('bad_input', 'give the server as an entry (the form) or as pasted JSON, one of the two');
        if (json !== undefined) {
          let value: unknown;
          try {
            value = JSON.parse(json);
          } catch (error) {
            throw new ControlError('bad_input', `the pasted text is not JSON: ${messageOf(error)}`);
          }
          if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ControlError('bad_input', 'the pasted JSON is not an object');
          const record = value as Record<string, unknown>;
          const map = (record.mcpServers as Record<string, unknown> | undefined) ?? record;
          const one = 'command' in record || 'url' in record ? record : Object.keys(map).length === 1 ? Object.values(map)[0] : undefined;
          if (typeof one !== 'object' || one === null)
            throw new ControlError('bad_input', `the pasted JSON holds ${Object.keys(map).length} servers: paste one`);
          return fromRaw(name, one as Record<string, unknown>);
        }
        const e = entry as { transport?: string; command?: string; args?: string[]; secrets?: string[]; url?: string; headers?: string[] };
        if (e.transport === 'stdio') {
          const command = e.command ?? '';
          if (/[\\/]/.test(command) && !command.startsWith('/'))
            throw new ControlError(
              'bad_input',
              `server ${name}: the command ${JSON.stringify(command)} is a relative path: give an absolute path, or a command found on PATH`,
            );
          return add(name, 'stdio', [command, ...(e.args ?? [])].join(' '), e.secrets ?? [], false);
        }
        if (!/^https?:\/\//.test(e.url ?? '')) throw new ControlError('bad_input', `server ${name}: "url" Invalid URL`);
        return add(name, 'http', e.url!, e.headers ?? [], false);
      },
      'servers.remove': ({ name }) => {
        const at = servers.findIndex((x) => x.name === name);
        if (at < 0) return { removed: false };
        servers.splice(at, 1);
        delete accepted[name];
        delete policies[name];
        changed();
        return { removed: true };
      },
      'servers.importable': () =>
        clients
          .filter((c) => c.servers.length > 0)
          .map(({ servers: own, afterwards: _afterwards, ...c }) => ({ ...c, servers: own.map(({ raw: _raw, ...s }) => s) })),
      'servers.import': ({ client: id, servers: names = [], all, dryRun }) => {
        const client = clients.find((c) => c.client === id);
        if (!client || client.servers.length === 0) throw new ControlError('not_found', `${id} has no MCP server of its own to move`);
        const picked = client.servers.filter((s) => all || names.includes(s.from) || names.includes(s.name));
        if (picked.length === 0) throw new ControlError('bad_input', 'name the servers to move, or all of them');
        const refused = picked.flatMap((s) => {
          const problem =
            s.problem ??
            (servers.some((x) => x.name === s.name)
              ? `a server named '${s.name}' is behind Airlock already (airlock servers remove ${s.name} first)`
              : undefined);
          return problem ? [{ from: s.from, problem }] : [];
        });
        const going = picked.filter((s) => !refused.some((r) => r.from === s.from));
        const diff = going.length > 0 ? fileDiff(client, going) : '';
        const base = { moved: going.map((s) => s.name), refused, diff, digest: `sha256:fake-${going.map((s) => s.name).join(',')}-${diff.length}` };
        if (dryRun || going.length === 0) return { ...base, dryRun: dryRun === true };
        for (const s of going) fromRaw(s.name, s.raw);
        client.servers = client.servers.filter((s) => !going.includes(s));
        changed();
        return { ...base, dryRun: false, backup: `/fake/client-backups/${id}.json`, afterwards: client.afterwards ?? `restart ${client.label}` };
      },
      'servers.list': () => servers.map((s) => view(s.name)),
      'servers.review': ({ name }) => {
        if (find(name).state !== 'connected') start(name);
        return reviewOf(name);
      },
      'servers.accept': ({ name, digest: shown }) => {
        if (find(name).state !== 'connected') start(name);
        if (shown !== digest(name)) throw new ControlError('conflict', `MCP server ${name}'s tools changed since they were shown: nothing was accepted`);
        accepted[name] = now(name).map((t) => ({ ...t }));
        changed();
        return reviewOf(name);
      },
      'servers.setEnabled': ({ name, enabled }) => {
        const s = find(name);
        const { reason: _reason, toolCount: _count, ...rest } = s;
        servers.splice(servers.indexOf(s), 1, { ...rest, enabled, state: enabled ? 'configured' : 'disabled', stderr: [] });
        changed();
        return view(name);
      },
      'servers.restart': ({ name }) => {
        try {
          start(name);
        } catch {
          // Its view says why.
        }
        return view(name);
      },
      'servers.setPolicy': ({ name, tool, policy }) => {
        const s = find(name);
        if (tool === undefined) {
          const { defaultPolicy: _default, ...rest } = s;
          servers.splice(servers.indexOf(s), 1, policy ? { ...rest, defaultPolicy: policy } : rest);
        } else {
          const { [tool]: _old, ...others } = policies[name] ?? {};
          policies[name] = policy ? { ...others, [tool]: policy } : others;
        }
        changed();
        return reviewOf(name);
      },
    },
  };
}
