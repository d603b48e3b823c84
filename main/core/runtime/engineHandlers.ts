// The Engine screen's methods: the engine × egress grid and switching the
// running companion to another combination (see engineChoice.ts).
import type { Services } from './services.ts';
import type { ControlHandlers } from '../control/dispatch.ts';
import { BY_ORGANISATION, limitRefusal, managedSettings, policyOf, refusedByOrganisation } from '../config/managedPolicy.ts';
import { AirlockError } from '../util/errors.ts';
import { settingByKey } from '../config/settings.ts';
import { readSettingsFile, writeSettingsFile } from '../config/settingsFile.ts';
import { engineCell, engineMatrix } from './engineChoice.ts';
// The inventory (which engines and tools this machine has) loads on the Engine screen's first call.
const engineInventory = async () => (await import('../diagnostics/engineInventory.ts')).engineInventory();

export type EngineHandlerServices = Pick<Services, 'info' | 'settings' | 'engines' | 'logs'>;

export function createEngineHandlers(c: EngineHandlerServices): Pick<ControlHandlers, 'engine.matrix' | 'engine.apply'> {
  const log = c.logs.logger;
  const currentEngine = () => {
    const { engine, network } = c.engines.state();
    return { engine, egress: network };
  };
  /** The flag or env var that chose the engine or egress, if any: it wins until removed. */
  const engineLock = (): string | undefined => {
    const fixed = managedSettings(c.settings.managed);
    for (const key of ['engine', 'egress']) {
      const source = c.settings.sources[key];
      if (key in fixed) return `your organisation (${BY_ORGANISATION})`;
      if (source === 'flag' || source === 'env') return source === 'flag' ? settingByKey(key)!.flag : settingByKey(key)!.env;
    }
    return undefined;
  };

  /** Why the organisation's policy refuses an engine or a boundary (its limits), or undefined. */
  const organisationRefusal = (engine: string, egress: string): string | undefined => {
    const policy = policyOf(c.settings.managed);
    return limitRefusal(policy, 'engine', engine) ?? limitRefusal(policy, 'egress', egress);
  };

  return {
    'engine.matrix': async () => engineMatrix(await engineInventory(), c.info.paths.root, currentEngine(), engineLock(), organisationRefusal),

    'engine.apply': async (input, caller) => {
      const lock = engineLock();
      if (lock)
        throw new AirlockError('conflict', `the engine is set by ${lock} for this run of the companion`, {
          hint: lock.startsWith('your organisation') ? 'ask whoever manages Airlock for your organisation' : `remove ${lock} to choose it here`,
        });
      const refused = organisationRefusal(input.engine, input.egress);
      if (refused) {
        log.warn(`engine: ${input.engine} with egress ${input.egress} refused, asked by ${caller.by}: ${refused}`);
        throw refusedByOrganisation(refused);
      }
      const cell = engineCell(input.engine, input.egress, await engineInventory(), c.info.paths.root, currentEngine());
      if (cell.state === 'invalid') throw new AirlockError('usage', cell.reason!);
      if (cell.state === 'needs-install') throw new AirlockError('unavailable', cell.reason!, cell.installHint ? { hint: cell.installHint } : {});
      if (cell.state === 'needs-acknowledgement' && input.acknowledgeUnrestricted !== true) {
        throw new AirlockError('usage', `${input.engine} with egress ${input.egress}: ${cell.reason}`, {
          hint: 'send acknowledgeUnrestricted: true to accept it',
        });
      }
      // An acknowledged unbounded network lasts for this run of the companion only: saved, it would need the flag at every start.
      const saved = cell.state !== 'needs-acknowledgement';
      const file = c.info.paths.settings;
      // settings.json is read before anything changes: a damaged file refuses the switch rather than half-applying it.
      const current = saved ? readSettingsFile(file) : undefined;
      await c.engines.switchTo({
        engine: input.engine,
        network: input.egress,
        ...(input.acknowledgeUnrestricted !== undefined ? { acknowledgeUnrestricted: input.acknowledgeUnrestricted } : {}),
      });
      if (current) await writeSettingsFile(file, { ...current, engine: input.engine, egress: input.egress });
      log.warn(
        `engine ${input.engine}, egress ${input.egress} chosen (${caller.by})${saved ? '' : '; not saved: it needs --allow-unrestricted-egress at each start'}`,
      );
      const { boundary, banner } = c.engines.state();
      return { engine: input.engine, egress: input.egress, boundary, ...(banner ? { banner } : {}), policy: cell.policy, saved };
    },
  };
}
