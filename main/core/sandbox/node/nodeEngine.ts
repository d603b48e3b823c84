// The `node` sandbox engine: each run is a fresh Node process with the
// permission model on and nothing granted (`--permission`, no `--allow-*`),
// so the code cannot read or write files, start processes or workers, load
// addons or use WASI. A script read from stdin needs no filesystem grant at
// all. Node's permission model has no say over the network, which is why the
// engine is offered in two egress modes only:
// - `wrapper`: the process runs inside srt, which lets it reach the gate and
//   nothing else (see ../srt/srtWrapper.ts);
// - `none`: the process runs as is; the network is bounded by nothing the OS
//   enforces (the prelude removes fetch, sockets and imports at the
//   JavaScript level only), and the caller must show a banner.
// `executor` is refused: there is no executor-level egress control in Node.

import { mkdtempSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { GateProxy } from '../gateProxy.ts';
import { silentLogger, type Logger } from '../../log/logger.ts';
import { createSubprocessEngine, runtimeEngineBase, type SubprocessEngine } from '../subprocess/subprocessEngine.ts';
import type { SubprocessLimits } from '../subprocess/limits.ts';
import { capsClause, childEnv, deathGuard, memoryCap, nodeRuntimeEnv, realDir } from '../subprocess/hostTools.ts';
import { locateSrt, srtEnv, srtInvocation, writeRunSrtSettings, type SrtOptions } from '../srt/srtWrapper.ts';

export interface NodeEngineOptions {
  proxy: GateProxy;
  logger?: Logger;
  egress: 'wrapper' | 'none';
  /** The Node binary for the sandbox (default: this process's). */
  nodePath?: string;
  /** srt options for the `wrapper` mode. */
  srt?: SrtOptions;
  /** Parent of the per-run directories (default: a fresh private dir under the OS temp dir). */
  tmpDir?: string;
}

/** First Node with `module.registerHooks` and an unflagged `--permission`. */
const MIN_NODE: readonly [number, number] = [22, 15];

/** The runtime flags of a run: permission model on, nothing granted, code from stdin as an ES module. */
export function nodeRuntimeArgs(limits: Pick<SubprocessLimits, 'heapMb' | 'stackKb'>): string[] {
  return [
    '--permission',
    '--no-addons',
    '--input-type=module',
    '--disable-warning=ExperimentalWarning',
    `--max-heap-size=${limits.heapMb}`,
    ...(limits.stackKb === undefined ? [] : [`--stack-size=${limits.stackKb}`]),
    '-',
  ];
}

function nodeVersion(nodePath: string): string {
  if (nodePath === process.execPath && process.versions.electron === undefined) return process.versions.node;
  const result = spawnSync(nodePath, ['--version'], { encoding: 'utf8', env: childEnv(tmpdir(), nodeRuntimeEnv(nodePath)), timeout: 10_000 });
  if (result.error || result.status !== 0) throw new Error(`the node engine cannot run ${nodePath}: ${result.error?.message ?? `exit code ${result.status}`}`);
  return result.stdout.trim().replace(/^v/, '');
}

export function createNodeEngine(options: NodeEngineOptions): SubprocessEngine {
  const log = (options.logger ?? silentLogger).child('node-engine');
  const egress = options.egress as string;
  if (egress !== 'wrapper' && egress !== 'none') {
    throw new Error(
      `the node engine cannot run with egress ${egress}: Node's permission model cannot scope the network (use wrapper, or none once acknowledged)`,
    );
  }
  const nodePath = options.nodePath ?? process.execPath;
  const version = nodeVersion(nodePath);
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) {
    throw new Error(`the node engine needs Node ${MIN_NODE.join('.')} or later (module.registerHooks, --permission); ${nodePath} is ${version}`);
  }
  const srt = egress === 'wrapper' ? locateSrt(options.srt) : undefined;
  if (srt && !srt.found) throw new Error(`the node engine's wrapper egress needs srt: ${srt.reason}`);
  const cap = memoryCap(log);
  const guard = deathGuard(log);
  const tmpRoot = options.tmpDir ?? mkdtempSync(join(tmpdir(), 'airlock-node-'));
  const runtimeDir = realDir(nodePath);
  const proxy = options.proxy;

  const launch = async ({ runDir, limits }: { runDir: string; limits: SubprocessLimits }) => {
    const runtimeArgv = [nodePath, ...nodeRuntimeArgs(limits)];
    const runtime = [...cap.prefix(limits), ...runtimeArgv];
    if (!srt?.found) {
      const [command, ...args] = runtime;
      return { ...guard.exec(command!, args), env: childEnv(runDir, nodeRuntimeEnv(nodePath)), runtimeArgv };
    }
    const settingsFile = await writeRunSrtSettings({ srt: options.srt, runDir, gatePort: proxy.port, readablePaths: [runtimeDir, srt.packageDir] });
    const { command, args } = srtInvocation(srt, settingsFile, runtime);
    return { ...guard.group(command, args), env: srtEnv(srt, runDir, nodeRuntimeEnv(nodePath)), runtimeArgv };
  };

  const network =
    egress === 'wrapper'
      ? `Network: confined by srt to Airlock's gate on 127.0.0.1:${proxy.port}, which needs the run's token; srt also keeps the filesystem read-only and hides the home and data directories.`
      : 'Network: NOT restricted by anything the OS enforces in this mode (fetch and sockets are only hidden at the JavaScript level), so any host this machine can reach may be reachable.';
  const describeBoundary = () =>
    `Node.js ${version}, a fresh process per run with the permission model on and nothing granted (no file reads or writes, no child processes, no worker threads, no addons, no WASI; imports refused, process and fetch removed), ${capsClause(cap)}. ${network}`;

  const runtimePaths = [runtimeDir, dirname(nodePath)];
  const base = runtimeEngineBase({ logger: log, proxy, tmpRoot, madeTmpRoot: options.tmpDir === undefined, srt, memoryCap: cap, runtimePaths });
  return createSubprocessEngine({ name: 'node', label: 'Node', launch, describeBoundary, ...base });
}
