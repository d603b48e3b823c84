// Builds the configured sandbox engine once the engine × egress matrix has
// allowed the combination: QuickJS in-process (workers), or a Node or Deno
// subprocess talking to the gate through the loopback gate proxy (directly,
// or inside the srt wrapper). A missing runtime is a start-up error that says
// what was looked for.
import { availableParallelism } from 'node:os';
import { AirlockError } from '../util/errors.ts';
import type { NetworkMode, Settings } from '../config/settings.ts';
import type { Logger } from '../log/logger.ts';
import type { SandboxEngine } from '../sandbox/engine.ts';
import type { GateProxy } from '../sandbox/gateProxy.ts';
import type { DataPaths } from '../config/dataDir.ts';
import { createQuickJsEngine } from '../sandbox/quickjs/quickjsEngine.ts';
import { messageOf } from '../../../contract/values.ts';

export interface EngineRequest {
  settings: Settings;
  network: NetworkMode;
  paths: DataPaths;
  logger: Logger;
  /** Started lazily for subprocess engines only. */
  proxy: () => Promise<GateProxy>;
}

export async function createEngine(req: EngineRequest): Promise<SandboxEngine> {
  const log = req.logger.child(`engine:${req.settings.engine}`);
  const srt = { dataDir: req.paths.root };
  try {
    switch (req.settings.engine) {
      case 'quickjs':
        // Workers running code are bounded by the cores (more buys no throughput,
        // only memory); a worker whose run waits for a person does not count, so
        // an approval never stalls other runs. The caps bound the rest, and the
        // wasm memory of all sandboxes together stays within --sandbox-memory-mb.
        return createQuickJsEngine({
          logger: log,
          maxWorkers: Math.min(req.settings.maxConcurrent, Math.max(2, availableParallelism())),
          poolSize: 1,
          // The worker starts when a client first searches or runs, not with the companion.
          warmAtStart: false,
          memoryBytes: req.settings.memoryMb * 1024 * 1024,
          sandboxMemoryBytes: req.settings.sandboxMemoryMb * 1024 * 1024,
        });
      case 'node': {
        // Subprocess engines load only when chosen: QuickJS start-up stays lean.
        const { createNodeEngine } = await import('../sandbox/node/nodeEngine.ts');
        return createNodeEngine({ proxy: await req.proxy(), logger: log, egress: req.network === 'executor' ? 'wrapper' : req.network, srt });
      }
      case 'deno': {
        const { findDeno } = await import('../sandbox/deno/findDeno.ts');
        const { createDenoEngine } = await import('../sandbox/deno/denoEngine.ts');
        const deno = findDeno();
        if (!deno.found)
          throw new AirlockError('config', `engine deno: ${deno.reason}`, { hint: 'install Deno, or choose QuickJS (the Engine screen, or --engine quickjs)' });
        log.info(`deno ${deno.version} from ${deno.source} (${deno.path})`);
        return createDenoEngine({ proxy: await req.proxy(), logger: log, egress: req.network, denoPath: deno.path, denoDir: req.paths.denoDir, srt });
      }
    }
  } catch (error) {
    if (error instanceof AirlockError) throw error;
    throw new AirlockError('config', `engine ${req.settings.engine} with egress ${req.network} cannot start: ${messageOf(error)}`);
  }
}
