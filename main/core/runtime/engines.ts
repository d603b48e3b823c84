// The Engines service: the sandbox engine runs use (switchable while the
// companion runs), the gate proxy subprocess engines reach the gate through
// (started on first need), and what the combination of engine and network
// boundary means, in words (the boundary text) and as a warning (the banner).
import { AirlockError } from '../util/errors.ts';
import type { Settings } from '../config/settings.ts';
import type { DataPaths } from '../config/dataDir.ts';
import type { Logger } from '../log/logger.ts';
import { checkEngineNetwork } from '../sandbox/engineMatrix.ts';
import { SwitchableEngine } from '../sandbox/switchableEngine.ts';
import { startGateProxy, type GateProxy } from '../sandbox/gateProxy.ts';
import { createEngine } from './sandboxEngines.ts';
import { boundaryText, type BoundaryApi } from './boundaryText.ts';
import type { Engines, EngineState } from './services.ts';

export interface EnginesOptions {
  /** The settings in effect: a switch writes the new engine and network here. */
  settings: Settings;
  paths: DataPaths;
  logger: Logger;
  /** What the boundary text names: where each API's gate sends, and its mutation policy (read when the text is). */
  apis: () => BoundaryApi[];
}

type AllowedChoice = Extract<ReturnType<typeof checkEngineNetwork>, { ok: true }>;

function check(engine: Settings['engine'], network: Settings['egress'], acknowledged: boolean): AllowedChoice {
  const verdict = checkEngineNetwork(engine, network, acknowledged);
  if (!verdict.ok) throw new AirlockError('usage', verdict.reason);
  return verdict;
}

/**
 * The configured engine × network, refused (a usage error) before anything starts when the matrix forbids it; its
 * banner is logged. One exception, so a companion saved with a choice that now needs an acknowledgement still starts:
 * an unbounded network read from settings.json (engine node with egress none was saved before it needed one, issue 39
 * §10) without the acknowledgement starts on the default, QuickJS, and says so — the stricter choice, never the
 * looser one. Given by a flag or the environment, it is refused as any other.
 */
export function checkEngineChoice(settings: Settings, logger: Logger, sources: Record<string, string> = {}): AllowedChoice {
  const saved = (key: string) => sources[key] === 'file' || sources[key] === 'default';
  const verdict = checkEngineNetwork(settings.engine, settings.egress, settings.allowUnrestrictedEgress);
  if (!verdict.ok && saved('engine') && saved('egress') && checkEngineNetwork(settings.engine, settings.egress, true).ok) {
    logger.warn(
      `settings.json asks for engine ${settings.engine} with egress ${settings.egress}, which needs your acknowledgement at each start ` +
        `(the Engine screen's "I accept", or --allow-unrestricted-egress); started with engine quickjs, egress executor instead`,
    );
    settings.engine = 'quickjs';
    settings.egress = 'executor';
  }
  const choice = check(settings.engine, settings.egress, settings.allowUnrestrictedEgress);
  if (choice.banner) logger.warn(choice.banner);
  return choice;
}

/** Builds the engine `checkEngineChoice` allowed; `close` stops it and the gate proxy. */
export async function createEngines(options: EnginesOptions & { choice: AllowedChoice }): Promise<Engines & { close(): Promise<void> }> {
  const { settings, paths, logger, apis, choice: first } = options;

  let proxy: GateProxy | undefined;
  const gateProxy = async () => (proxy ??= await startGateProxy({ logger: logger.child('gate-proxy') }));
  const build = (engine: Settings['engine'], network: NonNullable<Settings['egress']>) =>
    createEngine({ settings: { ...settings, engine }, network, paths, logger, proxy: gateProxy });
  // The boundary text is written when asked: it quotes live settings (the approval timeout).
  const describe = (network: NonNullable<Settings['egress']>, banner: string | undefined, engineBoundary: string) => () => ({
    engine: settings.engine,
    network,
    ...(banner ? { banner } : {}),
    engineBoundary,
    boundary: boundaryText({ settings, network, engineBoundary, apis: apis() }),
  });

  const engine = new SwitchableEngine(await build(settings.engine, first.egress));
  let state: () => EngineState = describe(first.egress, first.banner, engine.describeBoundary());

  return {
    engine,
    state: () => state(),
    async switchTo(choice) {
      const acknowledged = choice.acknowledgeUnrestricted === true;
      const verdict = check(choice.engine, choice.network, acknowledged);
      const next = await build(choice.engine, verdict.egress);
      engine.switchTo(next);
      settings.engine = choice.engine;
      settings.egress = verdict.egress;
      settings.allowUnrestrictedEgress = acknowledged;
      state = describe(verdict.egress, verdict.banner, next.describeBoundary());
      if (verdict.banner) logger.warn(verdict.banner);
      logger.info(`engine switched to ${choice.engine} with egress ${verdict.egress}; runs already going finish on the previous engine`);
    },
    async close() {
      try {
        await engine.close();
      } finally {
        await proxy?.close();
      }
    },
  };
}
