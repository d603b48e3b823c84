// The Clients screen's methods: the same registrar as `airlock clients`,
// for this companion's data dir. The registrar (with its JSONC, TOML and diff
// libraries) loads on the screen's first call, not at every start.
import type { ControlHandlers } from '../control/dispatch.ts';
import type { Services } from './services.ts';

const clients = () => import('../clients/machineRegistrar.ts');

export type ClientHandlerServices = Pick<Services, 'info' | 'logs'>;

export function createClientHandlers(c: ClientHandlerServices): Pick<ControlHandlers, 'clients.list' | 'clients.change' | 'clients.undo'> {
  const registrar = async () => (await clients()).machineRegistrar(c.info.paths.root);
  const log = c.logs.logger;
  return {
    'clients.list': async () => (await registrar()).list(),
    'clients.change': async ({ id, action, dryRun, apis }, caller) => {
      const result = await (await registrar())[action](id, { dryRun: dryRun === true, ...(apis ? { apis } : {}) });
      if (result.changed && !result.dryRun) log.info(`${action === 'add' ? 'registered in' : 'removed from'} ${id} (${result.file}) by ${caller.by}`);
      const handshake =
        action === 'add' && !result.dryRun
          ? await (await import('../clients/verifyLaunch.ts')).verifyLaunch((await clients()).launchFor(c.info.paths.root, result.apis))
          : undefined;
      return { ...result, ...(handshake ? { handshake } : {}) };
    },
    'clients.undo': async ({ id }, caller) => {
      const r = await (await registrar()).undo(id);
      log.info(`client ${id}: ${r.file} restored by ${caller.by}`);
      return r;
    },
  };
}
