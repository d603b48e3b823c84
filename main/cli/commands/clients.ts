// `airlock clients list | add NAME [--api API…] | remove NAME | undo NAME`:
// registers Airlock in the MCP clients on this machine. add and remove show
// the change as a diff (`--dry-run` stops there), back the file up, make the
// change with the client's CLI when it is on PATH or a minimal edit of its
// file, then check the registration with a real MCP handshake. `--api` gives
// the registration a scope (the APIs its session reaches); adding again with
// another scope updates it. `--json` for scripts.
import type { ChangeResult, ClientStatus } from '../../core/clients/registrar.ts';
import { verifyLaunch, type Handshake } from '../../core/clients/verifyLaunch.ts';
import { launchFor, machineRegistrar } from '../../core/clients/machineRegistrar.ts';
import { checkScope } from '../../core/clients/registrationScope.ts';
import { ProfileStore } from '../../core/profiles/profileStore.ts';
import { apiIdentifier } from '../../core/profiles/apiIdentifier.ts';
import { dataPaths } from '../../core/config/dataDir.ts';
import type { CliContext } from '../context.ts';

function registrar(ctx: CliContext) {
  return machineRegistrar(ctx.settings.dataDir);
}

const MARK: Record<ClientStatus['state'], string> = {
  registered: '✔ registered',
  'not-registered': '· not registered',
  outdated: '! outdated',
  broken: '✘ file broken',
  'not-installed': '– not installed',
};

export async function clientsList(ctx: CliContext, options: { json?: boolean }): Promise<void> {
  const rows = await registrar(ctx).list();
  if (options.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return;
  }
  const width = Math.max(...rows.map((r) => r.id.length));
  for (const r of rows) {
    const scope = r.apis ? `\n${' '.repeat(width + 2)}reaches only: ${r.apis.join(', ')}` : '';
    process.stdout.write(
      `${r.id.padEnd(width)}  ${MARK[r.state].padEnd(17)} ${r.file ?? ''}${scope}${r.reason ? `\n${' '.repeat(width + 2)}${r.reason}` : ''}\n`,
    );
  }
  process.stdout.write(
    '\nAdd one with `airlock clients add <name>` (`--dry-run` shows the change first; `--api NAME`, repeatable, limits it to those APIs).\n',
  );
}

/** What the registration reaches, said once. */
const reach = (apis: readonly string[] | undefined) => (apis ? `only ${apis.join(', ')}` : 'every API the companion serves');

function report(r: ChangeResult, handshake: Handshake | undefined): void {
  if (!r.changed) {
    const already = r.action === 'add' ? `already registered, reaching ${reach(r.apis)},` : 'not registered';
    process.stdout.write(`${r.id}: nothing to do (${already} in ${r.file}).\n`);
  } else {
    process.stdout.write(r.diff.endsWith('\n') ? r.diff : r.diff + '\n');
    const how = r.via === 'cli' ? `with \`${r.command!.join(' ')}\`` : `by editing ${r.file}`;
    process.stdout.write(
      r.dryRun
        ? `Dry run: nothing was written (would be done ${how}).\n`
        : `Done ${how}; the previous file is kept in ${r.backup} (\`airlock clients undo ${r.id}\`).\n`,
    );
  }
  if (handshake) {
    process.stdout.write(
      handshake.ok
        ? `✔ the registered command answers: ${handshake.tools.join(', ')} (${handshake.ms} ms)\n`
        : `✘ the registered command does not answer: ${handshake.reason}\n`,
    );
  }
  if (r.changed && r.action === 'add') process.stdout.write(`${r.id} ${r.dryRun ? 'would reach' : 'reaches'} ${reach(r.apis)}.\n`);
  if (r.changed && !r.dryRun) process.stdout.write(`Then: ${r.afterwards}.\n`);
}

/** Names of the scope that match no API of this data dir: said, not refused (the API may be added later). */
function unknownApis(ctx: CliContext, apis: readonly string[]): string[] {
  const known = new Set(new ProfileStore(dataPaths(ctx.settings.dataDir).profiles).names().flatMap((n) => [n, apiIdentifier(n)]));
  return apis.filter((n) => !known.has(n));
}

export async function clientsChange(
  ctx: CliContext,
  action: 'add' | 'remove',
  id: string,
  options: { dryRun?: boolean; json?: boolean; verify?: boolean; apis?: string[] },
): Promise<number> {
  const apis = action === 'add' ? checkScope(options.apis) : undefined;
  if (apis && !options.json) {
    for (const name of unknownApis(ctx, apis)) {
      process.stderr.write(`airlock: note: no API named '${name}' in this data dir yet: the client reaches it once it is added (\`airlock apis list\`).\n`);
    }
  }
  const r = await registrar(ctx)[action](id, { dryRun: options.dryRun === true, ...(apis ? { apis } : {}) });
  const handshake = action === 'add' && options.verify !== false && !options.dryRun ? await verifyLaunch(launchFor(ctx.settings.dataDir, r.apis)) : undefined;
  if (options.json) process.stdout.write(JSON.stringify({ ...r, ...(handshake ? { handshake } : {}) }, null, 2) + '\n');
  else report(r, handshake);
  return handshake && !handshake.ok ? 1 : 0;
}

export async function clientsUndo(ctx: CliContext, id: string, options: { json?: boolean }): Promise<void> {
  const r = await registrar(ctx).undo(id);
  if (options.json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
  else
    process.stdout.write(
      r.restored === 'previous' ? `Restored ${r.file} as it was before the last change.\n` : `Removed ${r.file}: it did not exist before the last change.\n`,
    );
}
