// The Clients screen's methods: the same registrar as `airlock clients`,
// for this companion's data dir. The registrar (with its JSONC, TOML and diff
// libraries) loads on the screen's first call, not at every start. HTTP
// clients' own tokens are the same file `airlock clients token` writes: the
// server reads it again when it changes, so a revoke counts at the next
// request.
import type { ControlHandlers } from '../control/dispatch.ts';
import { openClientTokens } from '../http/clientTokens.ts';
import { checkScope } from '../clients/registrationScope.ts';
import { AirlockError } from '../util/errors.ts';
import type { Services } from './services.ts';

const clients = () => import('../clients/machineRegistrar.ts');

export type ClientHandlerServices = Pick<Services, 'info' | 'logs'> & Partial<Pick<Services, 'broker'>>;

export function createClientHandlers(
  c: ClientHandlerServices,
): Pick<ControlHandlers, 'clients.list' | 'clients.change' | 'clients.undo' | 'clientTokens.list' | 'clientTokens.create' | 'clientTokens.revoke'> {
  const registrar = async () => (await clients()).machineRegistrar(c.info.paths.root);
  const log = c.logs.logger;
  const tokens = openClientTokens(c.info.paths.clientTokens);
  return {
    'clientTokens.list': async () => tokens.list(),
    'clientTokens.create': async ({ name, apis }, caller) => {
      const made = tokens.create(name, checkScope(apis, 'apis'));
      log.info(`client token made for ${made.view.name} (sha256:${made.view.fingerprint}) by ${caller.by}`);
      return made;
    },
    'clientTokens.revoke': async ({ id }, caller) => {
      const view = tokens.list().find((t) => t.id === id);
      if (!view || !tokens.revoke(id))
        throw new AirlockError('not_found', `no client token ${JSON.stringify(id)}`, { hint: 'it may have been revoked already' });
      log.info(`client token of ${view.name} (sha256:${view.fingerprint}) revoked by ${caller.by}`);
      // Its "this client, until revoked" grants go with it (one revoked by the CLI leaves them bound to a token no one has).
      c.broker?.grants.revokeClientToken(id, caller.by);
      return { revoked: view };
    },
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
