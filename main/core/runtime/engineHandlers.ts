// The Engine screen's methods: the engine × egress grid and switching the
// running companion to another combination (see engineChoice.ts).
import type { HandlerDeps } from './handlerDeps.ts';
import type { ControlHandlers } from '../control/dispatch.ts';
import { AirlockError } from '../errors.ts';
import type { EgressMode } from '../config/settings.ts';
import { settingByKey } from '../config/settings.ts';
import { readSettingsFile, writeSettingsFile } from '../config/settingsFile.ts';
import { engineCell, engineMatrix } from './engineChoice.ts';
// The inventory (which engines and tools this machine has) loads on the Engine screen's first call.
const engineInventory = async () => (await import('../diagnostics/engineInventory.ts')).engineInventory();

export function createEngineHandlers(c: HandlerDeps): Pick<ControlHandlers, 'engine.matrix' | 'engine.apply'> {
  const log = c.core.logger;
  const currentEngine = () => ({ engine: c.settings.engine, egress: c.egress as EgressMode });
  /** The flag or env var that chose the engine or egress, if any: it wins until removed. */
  const engineLock = (): string | undefined => {
    for (const key of ['engine', 'egress']) {
      const source = c.resolved.sources[key];
      if (source === 'flag' || source === 'env') return source === 'flag' ? settingByKey(key)!.flag : settingByKey(key)!.env;
    }
    return undefined;
  };

  return {
    'engine.matrix': async () => engineMatrix(await engineInventory(), c.core.paths.root, currentEngine(), engineLock()),

    'engine.apply': async (input, caller) => {
      const lock = engineLock();
      if (lock) throw new AirlockError('conflict', `the engine is set by ${lock} for this run of the companion`, { hint: `remove ${lock} to choose it here` });
      if (!c.switchEngine) throw new AirlockError('unavailable', 'this companion cannot switch engines while it runs');
      const cell = engineCell(input.engine, input.egress, await engineInventory(), c.core.paths.root, currentEngine());
      if (cell.state === 'invalid') throw new AirlockError('usage', cell.reason!);
      if (cell.state === 'needs-install') throw new AirlockError('unavailable', cell.reason!, cell.installHint ? { hint: cell.installHint } : {});
      if (cell.state === 'needs-acknowledgement' && input.acknowledgeUnrestricted !== true) {
        throw new AirlockError('usage', `${input.engine} with egress ${input.egress}: ${cell.reason}`, {
          hint: 'send acknowledgeUnrestricted: true to accept it',
        });
      }
      await c.switchEngine(input);
      // An acknowledged unbounded network lasts for this run of the companion only: saved, it would need the flag at every start.
      const saved = cell.state !== 'needs-acknowledgement';
      if (saved) {
        const file = c.core.paths.settings;
        await writeSettingsFile(file, { ...readSettingsFile(file), engine: input.engine, egress: input.egress });
      }
      log.warn(
        `engine ${input.engine}, egress ${input.egress} chosen (${caller.by})${saved ? '' : '; not saved: it needs --allow-unrestricted-egress at each start'}`,
      );
      return { engine: input.engine, egress: input.egress, boundary: c.boundary, ...(c.banner ? { banner: c.banner } : {}), policy: cell.policy, saved };
    },
  };
}
