// Builds the configured sandbox engine once the engine × egress matrix has
// allowed the combination: QuickJS in-process (workers), or a Node or Deno
// subprocess talking to the gate through the loopback gate proxy (directly,
// or inside the srt wrapper).
import { availableParallelism } from 'node:os';
import { AirlockError } from '../errors.ts';
import type { EgressMode, Settings } from '../config/settings.ts';
import type { Logger } from '../log/logger.ts';
import type { SandboxEngine } from '../sandbox/engine.ts';
import type { GateProxy } from '../egress/gateProxy.ts';
import type { DataPaths } from '../config/dataDir.ts';
import { createQuickJsEngine } from '../sandbox/quickjs/quickjsEngine.ts';

export interface EngineRequest {
  settings: Settings;
  egress: EgressMode;
  paths: DataPaths;
  logger: Logger;
  /** Started lazily for subprocess engines only. */
  proxy: () => Promise<GateProxy>;
}

export async function createEngine(req: EngineRequest): Promise<SandboxEngine> {
  const log = req.logger.child(`engine:${req.settings.engine}`);
  switch (req.settings.engine) {
    case 'quickjs':
      // Workers running code are bounded by the cores (more buys no throughput,
      // only memory); a worker whose run waits for a person does not count, so
      // an approval never stalls other runs. The caps bound the rest.
      return createQuickJsEngine({ logger: log, maxWorkers: Math.min(req.settings.maxConcurrent, Math.max(2, availableParallelism())), poolSize: 1 });
    case 'node':
    case 'deno':
      throw new AirlockError('config', `engine ${req.settings.engine} is not wired in this build yet`);
  }
}
