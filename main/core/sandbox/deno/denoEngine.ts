// The `deno` sandbox engine: each run is a fresh `deno run` reading the
// program from stdin, with one permission: `--allow-net=127.0.0.1:<gate
// port>` (the executor egress mode). Everything else Deno can deny is denied
// (files, environment, subprocesses, FFI, system info) and never prompted
// for; no config file, lock file, remote or npm import is used. DENO_DIR is a
// private directory in Airlock's data dir, which keeps cold starts short.
//
// Egress modes:
// - `executor`: Deno's own permission is the boundary (only the gate).
// - `wrapper`: the same, inside srt (the gate only, through srt's proxy).
// - `none`: `--allow-net` with no host list; the caller allows this only
//   with an explicit acknowledgement.

import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { GateProxy } from '../gateProxy.ts';
import { silentLogger, type Logger } from '../../log/logger.ts';
import { createSubprocessEngine, runtimeEngineBase, type SubprocessEngine } from '../subprocess/subprocessEngine.ts';
import type { SubprocessLimits } from '../subprocess/limits.ts';
import { capsClause, childEnv, deathGuard, memoryCap, realDir, which } from '../subprocess/hostTools.ts';
import { locateSrt, SRT_LINUX_HTTP_PROXY_PORT, srtEnv, srtInvocation, writeRunSrtSettings, type SrtOptions } from '../srt/srtWrapper.ts';
import { denoVersion } from './findDeno.ts';

export type DenoNetwork = 'executor' | 'wrapper' | 'none';

export interface DenoEngineOptions {
  proxy: GateProxy;
  logger?: Logger;
  egress: DenoNetwork;
  denoPath: string;
  /** A private, writable directory in Airlock's data dir (DENO_DIR). */
  denoDir: string;
  /** srt options for the `wrapper` mode. */
  srt?: SrtOptions;
  /** Parent of the per-run directories (default: a fresh private dir under the OS temp dir). */
  tmpDir?: string;
}

/** The `--allow-net` value for an egress mode: the gate only, plus srt's proxy under the wrapper. */
export function denoNetPermission(egress: DenoNetwork, gatePort: number, platform: NodeJS.Platform = process.platform): string {
  if (egress === 'none') return '--allow-net';
  const gate = `127.0.0.1:${gatePort}`;
  if (egress === 'executor') return `--allow-net=${gate}`;
  // Under srt the gate is reached through srt's HTTP proxy: on Linux it is bridged to a fixed port
  // inside the sandbox's own network namespace; on macOS its port is chosen per session, and the
  // Seatbelt profile is what limits localhost to it.
  return `--allow-net=${gate},${platform === 'linux' ? `localhost:${SRT_LINUX_HTTP_PROXY_PORT}` : 'localhost'}`;
}

/** The `deno run` flags of a run. */
export function denoRuntimeArgs(o: { egress: DenoNetwork; gatePort: number; limits: Pick<SubprocessLimits, 'heapMb' | 'stackKb'> }): string[] {
  const v8 = [`--max-heap-size=${o.limits.heapMb}`, ...(o.limits.stackKb === undefined ? [] : [`--stack-size=${o.limits.stackKb}`])];
  return [
    'run',
    '--quiet',
    '--no-prompt',
    '--no-config',
    '--no-lock',
    '--no-remote',
    '--no-npm',
    '--no-code-cache',
    '--ext=js',
    denoNetPermission(o.egress, o.gatePort),
    // The prelude reads the proxy srt sets, then deletes Deno before the code runs.
    ...(o.egress === 'wrapper' ? ['--allow-env=HTTP_PROXY,http_proxy'] : []),
    `--v8-flags=${v8.join(',')}`,
    '-',
  ];
}

export function createDenoEngine(options: DenoEngineOptions): SubprocessEngine {
  const log = (options.logger ?? silentLogger).child('deno-engine');
  const egress = options.egress as string;
  if (egress !== 'executor' && egress !== 'wrapper' && egress !== 'none') throw new Error(`the deno engine does not know egress ${egress}`);
  const found = denoVersion(options.denoPath);
  if ('error' in found) throw new Error(`the deno engine cannot run ${options.denoPath}: ${found.error}`);
  const version = found.version;
  if (Number(version.split('.')[0]) < 2) throw new Error(`the deno engine needs Deno 2 or later; ${options.denoPath} is ${version}`);
  const srt = egress === 'wrapper' ? locateSrt(options.srt) : undefined;
  if (srt && !srt.found) throw new Error(`the deno engine's wrapper egress needs srt: ${srt.reason}`);
  mkdirSync(options.denoDir, { recursive: true, mode: 0o700 });
  const cap = memoryCap(log);
  const guard = deathGuard(log);
  const tmpRoot = options.tmpDir ?? mkdtempSync(join(tmpdir(), 'airlock-deno-'));
  const runtimeDir = realDir(options.denoPath);
  const proxy = options.proxy;
  const envBinary = srt?.found ? (which('env') ?? '/usr/bin/env') : undefined;
  const denoEnv = { DENO_DIR: options.denoDir, DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' };

  const launch = async ({ runDir, limits }: { runDir: string; limits: SubprocessLimits }) => {
    const runtimeArgv = [options.denoPath, ...denoRuntimeArgs({ egress: egress as DenoNetwork, gatePort: proxy.port, limits })];
    const runtime = [...cap.prefix(limits), ...runtimeArgv];
    if (!srt?.found) {
      const [command, ...args] = runtime;
      return { ...guard.exec(command!, args), env: childEnv(runDir, denoEnv), runtimeArgv };
    }
    // DENO_DIR stays readable (warm caches) but not writable inside the wrapper.
    const settingsFile = await writeRunSrtSettings({
      srt: options.srt,
      runDir,
      gatePort: proxy.port,
      readablePaths: [runtimeDir, options.denoDir, srt.packageDir],
    });
    // srt exempts loopback from its proxy (NO_PROXY), but inside its sandbox loopback is not the host's:
    // Deno must send the gate's requests through the proxy.
    const inner = [envBinary!, '-u', 'NO_PROXY', '-u', 'no_proxy', ...runtime];
    const { command, args } = srtInvocation(srt, settingsFile, inner);
    return { ...guard.group(command, args), env: srtEnv(srt, runDir, denoEnv), runtimeArgv };
  };

  const network =
    egress === 'executor'
      ? `Network: only Airlock's gate on 127.0.0.1:${proxy.port}, enforced by Deno's --allow-net; the gate needs the run's token.`
      : egress === 'wrapper'
        ? `Network: only Airlock's gate on 127.0.0.1:${proxy.port}, enforced by Deno's --allow-net and again by srt around it (which also keeps the filesystem read-only and hides the home and data directories); the gate needs the run's token.`
        : 'Network: NOT restricted (--allow-net with no host list): any host this machine can reach is reachable.';
  const describeBoundary = () =>
    `Deno ${version}, a fresh process per run with no file, environment, subprocess, FFI or system access and no remote or npm imports (Deno and fetch removed too), ${capsClause(cap)}. ${network}`;

  const runtimePaths = [runtimeDir, dirname(options.denoPath), options.denoDir];
  const base = runtimeEngineBase({ logger: log, proxy, tmpRoot, madeTmpRoot: options.tmpDir === undefined, srt, memoryCap: cap, runtimePaths });
  return createSubprocessEngine({ name: 'deno', label: 'Deno', launch, describeBoundary, ...base });
}
