// npm run bench:upstream — what Airlock adds to a call of another MCP
// server's tool (issue 20: target ≤ 1 ms p50 over a direct connection). One
// process of the official "everything" server; its `echo` tool called:
//   direct  — the MCP SDK's client straight to the server (the floor: pipe,
//             JSON-RPC and the server's own work);
//   gated   — through Airlock's path: UpstreamServers (the running server,
//             its review), the tool gate (policy, redaction of arguments and
//             result, the result cap, one audit record written to a real
//             SQLite audit store) and Airlock's MCP client.
// The two are interleaved call by call, so the machine's drift hits both.
// Prints p50 and p95 of each and of the difference. A run of execute adds
// the sandbox on top: bench:mcp measures that.
//   node bench/upstream.bench.ts [--calls N]
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { UpstreamServers } from '../main/core/upstream/upstreamServers.ts';
import { launchServer } from '../main/core/upstream/serverLauncher.ts';
import { createToolGate } from '../main/core/upstream/toolGate.ts';
import { PinStore } from '../main/core/upstream/toolPins.ts';
import { openAuditStore } from '../main/core/audit/auditStore.ts';
import { createMemoryStore } from '../main/core/secrets/memoryStore.ts';
import { createRedactor } from '../main/core/log/redactor.ts';
import { silentLogger } from '../main/core/log/logger.ts';
import type { ServerEntry } from '../main/core/upstream/serverEntry.ts';
import type { RunContext } from '../main/core/gate/runContext.ts';
import { ROOT } from '../test/helpers/paths.ts';

const calls = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 2000;
const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const percentile = (v: number[], p: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))]!;
const ms = (v: number[]) => `p50 ${percentile(v, 50).toFixed(3)} ms, p95 ${percentile(v, 95).toFixed(3)} ms`;

const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-upstream-'));
try {
  // Direct: the SDK's client to its own process of the server.
  const direct = new Client({ name: 'bench', version: '1' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));

  // Gated: the same server started as Airlock starts it, behind the gate, accepted, `echo` allowed (read-only).
  const entry: ServerEntry = {
    transport: 'stdio',
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    env: [],
    secrets: [],
    enabled: true,
    timeoutMs: 60_000,
  };
  const pins = new PinStore(join(dir, 'server-reviews.json'));
  const redactor = createRedactor(['sk-bench-0123456789abcdef']);
  const servers = new UpstreamServers({
    entries: () => [{ name: 'everything', entry }],
    pins,
    launch: (name, e) =>
      launchServer(name, e, { keys: createMemoryStore(), onSecret: () => undefined, log: () => undefined, redact: redactor, loginPath: async () => undefined }),
    logger: silentLogger,
  });
  await pins.accept('everything', (await servers.tools('everything')).tools);
  const audit = openAuditStore({ file: join(dir, 'audit.sqlite') });
  const gate = createToolGate({ servers, redactor: () => redactor, onApiCall: (r) => audit.recordApiCall(r), logger: silentLogger });
  const run: RunContext = {
    runId: 'bench',
    caller: { key: 'bench', transport: 'internal' },
    scriptSha256: '',
    script: '',
    control: { whilePaused: (wait) => wait() },
    calls: [],
  };

  const args = { message: 'hello from the benchmark' };
  const directMs: number[] = [];
  const gatedMs: number[] = [];
  const warm = 200;
  for (let i = 0; i < calls + warm; i++) {
    let t = performance.now();
    await direct.callTool({ name: 'echo', arguments: args });
    const d = performance.now() - t;
    t = performance.now();
    const r = await gate.call({ server: 'everything', tool: 'echo', args }, run);
    const g = performance.now() - t;
    if (r.error) throw new Error(`the gated call failed: ${JSON.stringify(r.error)}`);
    run.calls.length = 0;
    if (i >= warm) {
      directMs.push(d);
      gatedMs.push(g);
    }
  }
  const diff = gatedMs.map((g, i) => g - directMs[i]!);
  console.log(`MCP tool call overhead, ${calls} calls of everything's echo, interleaved (Node ${process.version}):`);
  console.log(`  direct (SDK client → server):                     ${ms(directMs)}`);
  console.log(`  through Airlock (servers, tool gate, audit, client): ${ms(gatedMs)}`);
  console.log(`  Airlock's overhead per call:                       ${ms(diff)}`);
  await direct.close();
  await servers.close();
  audit.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
