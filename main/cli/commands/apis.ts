// `airlock apis list | enable NAME | disable NAME`: the APIs the companion
// serves at once. With a companion running, a change applies at once (no
// restart) through its control API; with none, it is saved in the profile
// and the next start serves it.
import { ProfileStore } from '../../core/profiles/profileStore.ts';
import { isEnabled } from '../../core/profiles/profile.ts';
import { apiIdentifier } from '../../core/profiles/apiIdentifier.ts';
import { dataPaths } from '../../core/config/dataDir.ts';
import type { ApiView } from '../../../contract/apis.ts';
import type { CliContext } from '../context.ts';

/** The running companion's control client, or undefined when none runs for this data dir. */
async function running(ctx: CliContext) {
  const { readServerInfo, isAlive, connectToRunningServer } = await import('../runningServer.ts');
  const info = readServerInfo(ctx.settings.dataDir);
  return info && isAlive(info.pid) ? connectToRunningServer(ctx.settings.dataDir) : undefined;
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
  }));
}

function stateOf(a: ApiView, live: boolean): string {
  if (!live) return a.enabled ? 'enabled (served at the next start)' : 'disabled';
  if (a.state === 'ready') return `served: ${a.operations} operations`;
  if (a.state === 'failed') return `failed: ${a.error}`;
  return a.state;
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
  process.stdout.write(`${name}: ${enabled ? 'enabled' : 'disabled'} (no companion runs: the next start ${enabled ? 'serves' : 'leaves out'} it)\n`);
  return 0;
}
