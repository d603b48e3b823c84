// The `wrapper` egress mode: a subprocess engine's command runs under srt
// (@anthropic-ai/sandbox-runtime) with a settings file that lets the sandbox
// reach Airlock's gate and nothing else.
//
// How srt bounds the network (read from its source, v0.0.83, and checked
// here by the tests): on Linux the command runs in a bubblewrap sandbox with
// its own, empty network namespace (`--unshare-net`); its loopback is not the
// host's, so 127.0.0.1:<gate port> is unreachable directly. The only way out
// is srt's filtering HTTP/SOCKS proxy, bridged in by socat on localhost:3128
// and :1080 and named in HTTP_PROXY (with a per-session proxy password). The
// proxy allows a destination only if it matches `network.allowedDomains`; an
// IP-literal entry `127.0.0.1:<port>` is exempt from its loopback
// resolved-address check, so it allows exactly the gate, and
// `strictAllowlist` makes every other host a refusal with no prompt. On macOS
// the same proxy is reached through a Seatbelt profile that allows only the
// proxy's localhost port.
//
// Filesystem: srt makes everything read-only except `allowWrite` (the run's
// temp dir, plus srt's own /tmp/claude and the standard streams), and hides
// the `denyRead` paths (the home directory, other users' homes, Airlock's
// data dir); `allowRead` re-opens what the runtime itself must read when it
// is installed inside one of those (its binary's directory, DENO_DIR, srt's
// own helper binaries). Denying /tmp as a whole is not possible: srt's proxy
// sockets live there.

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { childEnv, hostPath, nodeRuntimeEnv, pathDirs, which } from '../subprocess/hostTools.ts';

export const SRT_PACKAGE = '@anthropic-ai/sandbox-runtime';
/** Where srt bridges its HTTP proxy inside the Linux sandbox (fixed in its source). */
export const SRT_LINUX_HTTP_PROXY_PORT = 3128;

export interface SrtOptions {
  /** srt's CLI (`dist/cli.js`); default: the @anthropic-ai/sandbox-runtime dependency. */
  cliPath?: string;
  /** The Node that runs the CLI; default: this process's. */
  nodePath?: string;
  /** Airlock's data dir: unreadable inside the sandbox. */
  dataDir?: string;
  /** The user's home directory: unreadable inside the sandbox (default: os.homedir()). */
  homeDir?: string;
  /** More paths the sandbox must not read. */
  extraDenyRead?: string[];
}

export interface SrtSettings {
  network: {
    allowedDomains: string[];
    deniedDomains: string[];
    strictAllowlist: boolean;
    allowLocalBinding: boolean;
    allowAllUnixSockets: boolean;
  };
  filesystem: {
    denyRead: string[];
    allowRead: string[];
    allowWrite: string[];
    denyWrite: string[];
  };
}

export interface SrtSettingsOptions {
  /** The gate proxy's port (a string only to print a placeholder policy). */
  gatePort: number | string;
  /** The one writable directory (the run's temp dir). */
  tmpDir: string;
  dataDir?: string;
  homeDir?: string;
  /** Re-opened for reading inside denied areas: the runtime's install dir, DENO_DIR, srt's own files. */
  readablePaths?: string[];
  extraDenyRead?: string[];
  platform?: NodeJS.Platform;
}

function unique(paths: (string | undefined)[]): string[] {
  return [...new Set(paths.filter((p): p is string => typeof p === 'string' && p.length > 0))];
}

/** The srt settings that allow the gate and nothing else. */
export function srtSettingsFor(options: SrtSettingsOptions): SrtSettings {
  const platform = options.platform ?? process.platform;
  const otherHomes = platform === 'darwin' ? ['/Users'] : platform === 'linux' ? ['/home', '/root'] : [];
  return {
    network: {
      allowedDomains: [`127.0.0.1:${options.gatePort}`],
      deniedDomains: [],
      strictAllowlist: true,
      allowLocalBinding: false,
      allowAllUnixSockets: false,
    },
    filesystem: {
      denyRead: unique([options.homeDir ?? homedir(), ...otherHomes, options.dataDir, ...(options.extraDenyRead ?? [])]),
      allowRead: unique([options.tmpDir, ...(options.readablePaths ?? [])]),
      allowWrite: [options.tmpDir],
      denyWrite: [],
    },
  };
}

/**
 * The policy as text. `srt`: exactly the settings file srt is given.
 * `json`: one line, the same settings with what enforces them, for machines.
 */
export function renderSrtSettings(settings: SrtSettings, format: 'srt' | 'json' = 'srt'): string {
  if (format === 'srt') return `${JSON.stringify(settings, null, 2)}\n`;
  return `${JSON.stringify({
    wrapper: 'srt',
    package: SRT_PACKAGE,
    enforcedBy: "bubblewrap network namespace (Linux) or sandbox-exec (macOS); every connection goes through srt's filtering proxy",
    settings,
  })}\n`;
}

// ---- finding srt -----------------------------------------------------------------

export interface SrtLocation {
  found: true;
  cliPath: string;
  /** Node that runs the CLI. */
  nodePath: string;
  version: string;
  /** srt's package directory (its helper binaries must stay readable inside the sandbox). */
  packageDir: string;
}

export type SrtAvailability = SrtLocation | { found: false; reason: string };

function srtPackageDir(cliPath: string | undefined): { dir: string; version: string } | { reason: string } {
  if (cliPath) {
    const dir = dirname(dirname(cliPath));
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string };
      return { dir, version: pkg.version ?? 'unknown' };
    } catch {
      return existsSync(cliPath) ? { dir: dirname(cliPath), version: 'unknown' } : { reason: `the srt CLI ${cliPath} does not exist` };
    }
  }
  const require = createRequire(import.meta.url);
  let manifest: string;
  try {
    manifest = require.resolve(`${SRT_PACKAGE}/package.json`);
  } catch {
    return {
      reason: `the srt CLI was not found: the npm package ${SRT_PACKAGE} is not installed (resolved from ${dirname(new URL(import.meta.url).pathname)})`,
    };
  }
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string };
  return { dir: dirname(manifest), version: pkg.version ?? 'unknown' };
}

/** Which of srt's own requirements are missing here, without running it. */
export function locateSrt(options: Pick<SrtOptions, 'cliPath' | 'nodePath'> = {}): SrtAvailability {
  if (process.platform !== 'linux' && process.platform !== 'darwin') {
    return { found: false, reason: `the srt wrapper runs on Linux and macOS only; this is ${process.platform}` };
  }
  const pkg = srtPackageDir(options.cliPath);
  if ('reason' in pkg) return { found: false, reason: pkg.reason };
  const cliPath = options.cliPath ?? join(pkg.dir, 'dist', 'cli.js');
  if (!existsSync(cliPath)) return { found: false, reason: `the srt CLI is missing from ${pkg.dir} (expected dist/cli.js)` };
  const nodePath = options.nodePath ?? process.execPath;
  if (process.platform === 'linux') {
    const tools = [
      ['bwrap', 'bubblewrap'],
      ['socat', 'socat'],
      ['rg', 'ripgrep'],
    ] as const;
    const missing = tools.filter(([bin]) => !which(bin)).map(([bin, pkgName]) => `${bin} (package ${pkgName})`);
    if (missing.length > 0) {
      return { found: false, reason: `srt needs bubblewrap, socat and ripgrep on PATH; missing: ${missing.join(', ')} (looked in ${pathDirs().join(', ')})` };
    }
    const arch = process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : undefined;
    if (!arch) return { found: false, reason: `srt ships its seccomp helper for x64 and arm64 only; this is ${process.arch}` };
    const seccomp = join(pkg.dir, 'vendor', 'seccomp', arch, 'apply-seccomp');
    if (!existsSync(seccomp)) return { found: false, reason: `srt's seccomp helper is missing (${seccomp})` };
  } else if (!existsSync('/usr/bin/sandbox-exec')) {
    return { found: false, reason: 'srt needs /usr/bin/sandbox-exec, which this macOS does not have' };
  }
  return { found: true, cliPath, nodePath, version: pkg.version, packageDir: realpathOr(pkg.dir) };
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The environment srt runs with: built from scratch (srt passes it on to the sandboxed command). */
export function srtEnv(location: SrtLocation, runDir: string, extra: Record<string, string> = {}): Record<string, string> {
  // srt finds bwrap, socat and rg on PATH, and keeps its proxy sockets in TMPDIR (the run's own directory).
  return childEnv(runDir, { ...nodeRuntimeEnv(location.nodePath), ...extra }, hostPath());
}

/** `command args…` run under srt with the given settings file. */
/** Writes the run's srt settings file (0600) in its run dir and returns its path. */
export async function writeRunSrtSettings(o: { srt: SrtOptions | undefined; runDir: string; gatePort: number; readablePaths: string[] }): Promise<string> {
  const settingsFile = join(o.runDir, 'srt-settings.json');
  const settings = srtSettingsFor({
    gatePort: o.gatePort,
    tmpDir: o.runDir,
    ...(o.srt?.dataDir ? { dataDir: o.srt.dataDir } : {}),
    ...(o.srt?.homeDir ? { homeDir: o.srt.homeDir } : {}),
    ...(o.srt?.extraDenyRead ? { extraDenyRead: o.srt.extraDenyRead } : {}),
    readablePaths: o.readablePaths,
  });
  await writeFile(settingsFile, renderSrtSettings(settings), { mode: 0o600 });
  return settingsFile;
}

export function srtInvocation(location: SrtLocation, settingsFile: string, inner: string[]): { command: string; args: string[] } {
  return { command: location.nodePath, args: [location.cliPath, '--settings', settingsFile, '--', ...inner] };
}

const probes = new Map<string, Promise<SrtAvailability>>();

/**
 * Whether srt can sandbox a command here: its CLI and tools are present and a
 * tiny probe (`true` under a no-network, no-write policy) runs. The probe is
 * run once per CLI and Node pair and remembered.
 */
export function findSrt(options: Pick<SrtOptions, 'cliPath' | 'nodePath'> = {}): Promise<SrtAvailability> {
  const located = locateSrt(options);
  if (!located.found) return Promise.resolve(located);
  const key = `${located.nodePath}\0${located.cliPath}`;
  let probe = probes.get(key);
  if (!probe) {
    probe = probeSrt(located);
    probes.set(key, probe);
  }
  return probe;
}

async function probeSrt(location: SrtLocation): Promise<SrtAvailability> {
  const dir = await mkdtemp(join(tmpdir(), 'airlock-srt-probe-'));
  try {
    const settingsFile = join(dir, 'srt-settings.json');
    const settings = srtSettingsFor({ gatePort: 9, tmpDir: dir, readablePaths: [location.packageDir] });
    settings.network.allowedDomains = [];
    await writeFile(settingsFile, renderSrtSettings(settings), { mode: 0o600 });
    const truePath = which('true') ?? '/bin/true';
    const { command, args } = srtInvocation(location, settingsFile, [truePath]);
    const result = await new Promise<{ code: number | null; stderr: string; error?: Error }>((resolve) => {
      const child = spawn(command, args, { cwd: dir, env: srtEnv(location, dir), stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        if (stderr.length < 8192) stderr += d;
      });
      child.on('error', (error) => resolve({ code: null, stderr, error }));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    if (result.error) return { found: false, reason: `srt could not be started with ${location.nodePath}: ${result.error.message}` };
    if (result.code !== 0) {
      const detail = result.stderr.trim().split('\n').filter(Boolean).slice(0, 3).join(' / ') || `exit code ${result.code ?? 'none'}`;
      return { found: false, reason: `srt could not create a sandbox here: ${detail}` };
    }
    return location;
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
