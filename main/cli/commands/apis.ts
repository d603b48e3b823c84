// `airlock apis list | show | add | enable | disable | remove`: the APIs the
// companion serves at once. With a companion running, a change applies at
// once (no restart) through its control API; with none, it is saved in the
// profile and the next start serves it. `add` reads the document first,
// exactly as the APIs screen's "Add an API" does (download caps, external
// $refs, a broken document named with its line and column), showing how far
// it is: in the companion's worker when one runs (its progress comes as
// events), else here. `list` shows how far an API that is loading is.
import { isAbsolute, resolve } from 'node:path';
import { ProfileStore } from '../../core/profiles/profileStore.ts';
import { isEnabled, PROFILE_NAME } from '../../core/profiles/profile.ts';
import { PRESETS } from '../../core/profiles/presets.ts';
import { isUrl } from '../../core/openapi/loadDocument.ts';
import { parseAuthScheme, formatAuthScheme } from '../../core/config/auth.ts';
import { AirlockError } from '../../core/util/errors.ts';
import { apiRefusal, policyOf } from '../../core/config/managedPolicy.ts';
import { refuseByPolicy } from '../policyRefusal.ts';
import { inspectDocument } from '../../core/runtime/inspectDocument.ts';
import { apiIdentifier } from '../../core/profiles/apiIdentifier.ts';
import { dataPaths } from '../../core/config/dataDir.ts';
import type { ApiProgress, ApiView } from '../../../contract/apis.ts';
import { prepareApi } from '../../core/search/preparedApi.ts';
import type { CliContext } from '../context.ts';
import { apiKeyEnv } from '../../core/secrets/resolveCredential.ts';

/** The running companion's control client, or undefined when none runs for this data dir. */
async function running(ctx: CliContext) {
  return (await import('../runningServer.ts')).runningCompanion(ctx.settings.dataDir);
}

/** What the profiles say when no companion runs: enabled or not, nothing loaded. */
function offline(ctx: CliContext): ApiView[] {
  return new ProfileStore(dataPaths(ctx.settings.dataDir).profiles).list().map((l) => ({
    name: l.name,
    id: apiIdentifier(l.name),
    enabled: l.profile ? isEnabled(l.profile) : false,
    state: 'disabled' as const,
    ...(l.error ? { error: l.error } : {}),
    spec: l.profile?.spec ?? '',
    origin: l.profile?.origin ?? 'file',
    keyEnv: apiKeyEnv(l.name),
  }));
}

function stateOf(a: ApiView, live: boolean): string {
  if (!live) return a.enabled ? 'enabled (served at the next start)' : 'disabled';
  if (a.state === 'ready') return `served: ${a.operations} operations`;
  if (a.state === 'failed') return `failed: ${a.error}`;
  if (a.state === 'loading' && a.progress) return `loading: ${progressText(a.progress)}`;
  return a.state;
}

/** `indexing, 45% (10,000 of 22,361 operations)` */
export function progressText(p: ApiProgress): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const operations =
    p.operations === undefined ? '' : ` (${count(p.operations)}${p.total !== undefined && p.total !== p.operations ? ` of ${count(p.total)}` : ''} operations)`;
  return `${p.phase}, ${Math.round(p.percent)}%${operations}`;
}

/** Shows progress on stderr: one line rewritten in place on a terminal, a line per phase otherwise. */
function progressPrinter(label: string): { show(p: ApiProgress): void; done(): void } {
  const tty = process.stderr.isTTY === true;
  let phase = '';
  let shown = false;
  return {
    show(p) {
      if (tty) {
        process.stderr.write(`\r\x1b[2K${label} ${progressText(p)}`);
        shown = true;
      } else if (p.phase !== phase) process.stderr.write(`${label} ${progressText(p)}\n`);
      phase = p.phase;
    },
    done() {
      if (tty && shown) process.stderr.write('\r\x1b[2K');
    },
  };
}

export async function apisList(ctx: CliContext, options: { json?: boolean }): Promise<void> {
  const control = await running(ctx);
  const views = control ? await control.call('apis.list', {}) : offline(ctx);
  if (options.json) {
    process.stdout.write(JSON.stringify(views, null, 2) + '\n');
    return;
  }
  if (!control) process.stdout.write('No companion runs for this data dir: what the profiles say.\n');
  const width = Math.max(4, ...views.map((v) => v.name.length));
  for (const v of views) {
    const id = v.id === v.name ? '' : ` (in execute: ${v.id})`;
    process.stdout.write(`${v.name.padEnd(width)}  ${stateOf(v, control !== undefined)}${id}${v.title ? `  ${v.title}` : ''}\n`);
  }
}

export async function apisEnable(ctx: CliContext, name: string, enabled: boolean): Promise<number> {
  const control = await running(ctx);
  if (control) {
    const view = await control.call(enabled ? 'apis.enable' : 'apis.disable', { name });
    process.stdout.write(`${view.name}: ${stateOf(view, true)}\n`);
    return view.state === 'failed' ? 1 : 0;
  }
  const store = new ProfileStore(dataPaths(ctx.settings.dataDir).profiles);
  const profile = store.get(name);
  await store.save({ ...profile, enabled });
  process.stdout.write(`${name}: ${enabled ? 'enabled' : 'disabled'} (no companion runs: the next start ${enabled ? 'serves it' : 'leaves it out'})\n`);
  return 0;
}

export interface AddOptions {
  spec: string;
  baseUrl?: string;
  auth?: string;
  disabled?: boolean;
}

/** Reads the document as the APIs screen would, then saves the profile: served at once unless --disabled. */
export async function apisAdd(ctx: CliContext, name: string, options: AddOptions): Promise<number> {
  const spec = isUrl(options.spec) || isAbsolute(options.spec) ? options.spec : resolve(options.spec);
  if (options.auth !== undefined) {
    const auth = parseAuthScheme(options.auth);
    if (typeof auth === 'string') throw new AirlockError('usage', `--auth: ${auth}`);
  }
  if (options.baseUrl !== undefined && !/^https?:\/\/[^/]/i.test(options.baseUrl)) {
    throw new AirlockError('usage', `--base-url: '${options.baseUrl}' is not an http(s) URL`);
  }
  const store = new ProfileStore(dataPaths(ctx.settings.dataDir).profiles);
  const control = await running(ctx);
  process.stderr.write(`Reading ${spec}…\n`);
  const printer = progressPrinter('  ');
  let summary;
  try {
    if (control) {
      // The companion reads it in its worker and says how far it is, as events.
      const stop = await control
        .openEvents((events) => {
          for (const e of events) if (e.type === 'inspect-progress' && e.spec === spec) printer.show(e.progress);
        })
        .catch(() => undefined);
      try {
        summary = await control.call('profiles.inspect', { spec });
      } finally {
        stop?.();
      }
    } else {
      summary = await inspectDocument(spec, {
        cacheDir: dataPaths(ctx.settings.dataDir).specCache,
        prepare: (request) => prepareApi(request.spec, { ...request, logger: ctx.logger }),
        maxBytes: ctx.settings.specMaxMb * 1024 * 1024,
        onProgress: (p) => printer.show(p),
      });
    }
  } finally {
    printer.done();
  }
  for (const warning of summary.warnings) process.stderr.write(`warning: ${warning}\n`);
  // Nothing is saved for an API that could not be served: calls need somewhere to go.
  const resolvable = summary.servers.some((s) => /^https?:\/\//i.test(s)) || (isUrl(spec) && summary.servers.length > 0);
  if (!options.baseUrl && !resolvable) {
    throw new AirlockError('usage', `${spec} declares no server URL to send its calls to; nothing was saved`, { hint: 'give one with --base-url https://…' });
  }
  // The organisation's policy, before anything is saved (a running companion checks it again as it serves it).
  const refusal = apiRefusal(policyOf(ctx.managed), {
    profile: name,
    baseUrl: options.baseUrl ?? summary.servers.find((s) => /^https?:\/\//i.test(s)) ?? spec,
  });
  if (refusal) await refuseByPolicy(ctx, `apis add ${name}`, `${name}: ${refusal}`, 'nothing was saved');
  const fields = {
    name,
    spec,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.auth ? { auth: options.auth } : {}),
    ...(options.disabled ? { enabled: false } : {}),
  };
  if (control) {
    await control.call('profiles.save', fields);
    const view = (await control.call('apis.list', {})).find((a) => a.name === name);
    if (view?.state === 'failed') {
      // It could not be served as saved: it is not kept (the person fixes what the error says, and adds it again).
      await control.call('profiles.remove', { name });
      throw new AirlockError('config', `${name} could not be served, so nothing was saved: ${view.error ?? 'no reason given'}`);
    }
    process.stdout.write(`${name}: ${summary.title} ${summary.version}, ${summary.operations} operations; ${view ? stateOf(view, true) : 'saved'}\n`);
    return 0;
  }
  if (store.names().includes(name)) {
    throw new AirlockError('conflict', `an API is already named '${name}'${PRESETS[name] ? ' (built in)' : ''}`, {
      hint: 'choose another name, or remove it first (`airlock apis remove`)',
    });
  }
  const auth = options.auth !== undefined ? parseAuthScheme(options.auth) : undefined;
  await store.save({
    name,
    spec,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(auth && typeof auth !== 'string' ? { auth } : {}),
    enabled: options.disabled !== true,
    policy: 'ask',
    readOnly: false,
    allowPrivateNetwork: false,
    mutations: [],
    origin: 'file',
  });
  process.stdout.write(
    `${name}: ${summary.title} ${summary.version}, ${summary.operations} operations; saved ${options.disabled ? 'disabled' : 'enabled (no companion runs: the next start serves it)'}\n`,
  );
  return 0;
}

/** One API in full: its profile, its state, and how to reach it. */
export async function apisShow(ctx: CliContext, name: string, options: { json?: boolean }): Promise<number> {
  const control = await running(ctx);
  const views = control ? await control.call('apis.list', {}) : offline(ctx);
  const view = views.find((v) => v.name === name);
  if (!view) throw new AirlockError('not_found', `no API named '${name}'`, { hint: `known: ${views.map((v) => v.name).join(', ')}` });
  const profile = view.origin === 'adhoc' ? undefined : new ProfileStore(dataPaths(ctx.settings.dataDir).profiles).get(name);
  if (options.json) {
    process.stdout.write(JSON.stringify({ ...view, ...(profile ? { policy: profile.policy, readOnly: profile.readOnly } : {}) }, null, 2) + '\n');
    return 0;
  }
  const rows: [string, string | undefined][] = [
    ['name', view.name],
    ['in execute', view.id],
    ['state', stateOf(view, control !== undefined)],
    ['title', view.title],
    ['spec', view.spec],
    ['base URL', view.baseUrl ?? profile?.baseUrl],
    ['auth', view.auth ?? (profile?.auth ? formatAuthScheme(profile.auth) : undefined)],
    ['alias', view.alias],
    ['mutations', profile ? (profile.readOnly ? 'refused (read-only)' : `policy ${profile.policy}`) : undefined],
    ['origin', view.origin],
    ['last used', view.lastUsed ?? (control ? 'never (no call to it in the audit log)' : undefined)],
  ];
  for (const [label, value] of rows) if (value !== undefined && value !== '') process.stdout.write(`${label.padEnd(11)} ${value}\n`);
  return 0;
}

/** Removes a saved API: no longer served, its profile file deleted (a built-in one can only be disabled). */
export async function apisRemove(ctx: CliContext, name: string): Promise<number> {
  if (!PROFILE_NAME.test(name)) throw new AirlockError('usage', `'${name}' is not an API name`);
  const store = new ProfileStore(dataPaths(ctx.settings.dataDir).profiles);
  const control = await running(ctx);
  const removed = control ? (await control.call('profiles.remove', { name })).removed : store.remove(name);
  if (!removed) {
    if (PRESETS[name]) throw new AirlockError('usage', `'${name}' is built in and cannot be removed`, { hint: `disable it: \`airlock apis disable ${name}\`` });
    throw new AirlockError('not_found', `no saved API named '${name}'`, { hint: 'see `airlock apis list`' });
  }
  process.stdout.write(`${name}: removed${control ? ' (no longer served)' : ''}\n`);
  return 0;
}
