// A stand-in for the Airlock host, run as its own process by the engine
// tests: it starts a gate proxy and an engine, starts a run that never ends,
// and prints `running` once the sandboxed code is inside an API call. The test
// then kills this process with SIGKILL and checks that the sandbox died too.
// Usage: node sandboxHost.ts <node|deno> <egress> <tmpDir> [denoPath]
import { startGateProxy } from '../../main/core/sandbox/gateProxy.ts';
import { createNodeEngine } from '../../main/core/sandbox/node/nodeEngine.ts';
import { createDenoEngine, type DenoNetwork } from '../../main/core/sandbox/deno/denoEngine.ts';
import { join } from 'node:path';

const [kind, egress, tmpDir, denoPath] = process.argv.slice(2);
if (!kind || !egress || !tmpDir) throw new Error('usage: sandboxHost.ts <node|deno> <egress> <tmpDir> [denoPath]');
const proxy = await startGateProxy();
const engine =
  kind === 'node'
    ? createNodeEngine({ proxy, egress: egress as 'none' | 'wrapper', tmpDir })
    : createDenoEngine({ proxy, egress: egress as DenoNetwork, tmpDir, denoPath: denoPath!, denoDir: join(tmpDir, 'deno-dir') });
void engine.run({
  runId: 'forever',
  code: 'await api.ping(); for (;;) {}',
  client: { operations: [{ operationId: 'ping', callPath: ['ping'] }], globals: ['api'] },
  limits: { timeoutMs: 600_000, memoryBytes: 64 * 1024 * 1024, outputBytes: 1024 },
  callApi: async () => {
    process.stdout.write('running\n');
    return { data: null, error: null, status: 200 };
  },
});
