// `airlock clients list | add NAME | remove NAME | undo NAME`: registers
// Airlock in the MCP clients on this machine. add and remove show the change
// as a diff (`--dry-run` stops there), back the file up, make the change with
// the client's CLI when it is on PATH or a minimal edit of its file, then
// check the registration with a real MCP handshake. `--json` for scripts.
import type { ChangeResult, ClientStatus } from '../../core/clients/registrar.ts';
import { verifyLaunch, type Handshake } from '../../core/clients/verifyLaunch.ts';
import { launchFor, machineRegistrar } from '../../core/clients/machineRegistrar.ts';
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
    process.stdout.write(`${r.id.padEnd(width)}  ${MARK[r.state].padEnd(17)} ${r.file ?? ''}${r.reason ? `\n${' '.repeat(width + 2)}${r.reason}` : ''}\n`);
  }
  process.stdout.write('\nAdd one with `airlock clients add <name>` (`--dry-run` shows the change first).\n');
}

function report(r: ChangeResult, handshake: Handshake | undefined): void {
  if (!r.changed) {
    process.stdout.write(`${r.id}: nothing to do (${r.action === 'add' ? 'already registered' : 'not registered'} in ${r.file}).\n`);
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
  if (r.changed && !r.dryRun) process.stdout.write(`Then: ${r.afterwards}.\n`);
}

export async function clientsChange(
  ctx: CliContext,
  action: 'add' | 'remove',
  id: string,
  options: { dryRun?: boolean; json?: boolean; verify?: boolean },
): Promise<number> {
  const r = await registrar(ctx)[action](id, { dryRun: options.dryRun === true });
  const handshake = action === 'add' && options.verify !== false && !options.dryRun ? await verifyLaunch(launchFor(ctx.settings.dataDir)) : undefined;
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
