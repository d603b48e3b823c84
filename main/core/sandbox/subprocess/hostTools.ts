// Small host-side helpers the subprocess engines share: finding an
// executable on PATH; the OS limits where the platform has them (prlimit for
// memory and a CPU-time backstop, setpriv so a sandbox dies with Airlock);
// and the child's environment, built from scratch so nothing of Airlock's own
// environment (API keys included) can reach a sandbox.

import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { Logger } from '../../log/logger.ts';
import type { SubprocessLimits } from './limits.ts';

/** The PATH used to look tools up when the host has none. */
const FALLBACK_PATH = ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'].join(delimiter);

export function hostPath(): string {
  return process.env.PATH || FALLBACK_PATH;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable named `name` on PATH (with Windows' extensions there), or undefined. */
export function which(name: string, path: string = hostPath()): string | undefined {
  const names = process.platform === 'win32' ? [name, `${name}.exe`, `${name}.cmd`] : [name];
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    for (const candidate of names) {
      const full = join(dir, candidate);
      if (isExecutableFile(full)) return full;
    }
  }
  return undefined;
}

/** The directories a PATH lookup went through, for error messages. */
export function pathDirs(path: string = hostPath()): string[] {
  return path.split(delimiter).filter(Boolean);
}

/**
 * The OS memory cap (see limits.ts). On Linux: `prlimit` in front of the
 * runtime for the launch-time backstop (RLIMIT_DATA, no core dumps, CPU
 * time), `prlimit --pid` to lower the data cap before the code runs, and
 * /proc for the watchdog. Without prlimit there is only the watchdog; off
 * Linux there is neither (logged once), and the V8 heap cap is what is left.
 */
export interface MemoryCap {
  prefix(limits: SubprocessLimits): string[];
  /** Where the cap comes from, or why there is none (for the log). */
  note: string;
  /** An OS limit on the memory a run can map (RLIMIT_DATA). */
  enforced: boolean;
  /** The run's processes are measured and watched through /proc (Linux). */
  watched: boolean;
  /** prlimit, for lowering a live process's cap. */
  prlimit?: string;
}

/** The caps clause of an engine's describeBoundary. */
export function capsClause(cap: MemoryCap): string {
  const memory = cap.enforced
    ? 'memory (an OS limit on everything the run maps: V8 heap, array buffers, wasm memory, set before the code runs from what the runtime holds then, so its processes stay within the memory cap plus 64 MB)'
    : cap.watched
      ? "V8 heap and memory (no OS limit here: a watchdog samples the run's processes every 10 ms and kills them past the memory cap plus 64 MB)"
      : 'V8 heap (no OS memory limit on this platform)';
  return (
    'killed with its whole process group at the deadline (time spent waiting for a human approval does not count) and capped in ' +
    memory +
    ' and output (console plus return value)'
  );
}

export function memoryCap(log: Logger): MemoryCap {
  if (process.platform !== 'linux') {
    const note = `no OS memory cap on ${process.platform} (prlimit and /proc are Linux-only); the V8 heap cap still applies, array buffers and wasm memory are not capped`;
    log.info(note);
    return { prefix: () => [], note, enforced: false, watched: false };
  }
  const prlimit = which('prlimit') ?? (isExecutableFile('/usr/bin/prlimit') ? '/usr/bin/prlimit' : undefined);
  if (!prlimit) {
    const note = 'no OS memory cap: prlimit (util-linux) was not found on PATH; the V8 heap cap and a 10 ms RSS watchdog still apply';
    log.warn(note);
    return { prefix: () => [], note, enforced: false, watched: true };
  }
  return {
    prefix: (limits) => [prlimit, '--core=0', `--data=${limits.dataCapBytes}`, `--cpu=${limits.cpuSeconds}`, '--'],
    note: "an OS cap on writable memory (RLIMIT_DATA via prlimit, lowered to the run's budget before its code runs), and on CPU time as a backstop",
    enforced: true,
    watched: true,
    prlimit,
  };
}

/**
 * What makes a sandbox die with Airlock. On Linux, `setpriv --pdeathsig`
 * (util-linux): the kernel signals the child when its parent dies, and the
 * setting survives the execs that follow. Without it, a child whose host
 * crashed would run on until its code ends (bounded only by the CPU-time
 * limit). Elsewhere there is none, which is logged.
 */
export interface DeathGuard {
  /** For a command that only execs (prlimit → runtime): SIGKILL when Airlock dies. */
  exec(command: string, args: string[]): { command: string; args: string[] };
  /**
   * For a command that forks (srt starts a shell, bubblewrap, socat): the
   * signal is not inherited across fork, so a supervising shell, the process
   * group's leader, gets SIGTERM when Airlock dies and kills the whole group.
   * bubblewrap's --die-with-parent and its PID namespace take the sandbox
   * down with it.
   */
  group(command: string, args: string[]): { command: string; args: string[] };
  enforced: boolean;
}

/** stdin is kept for the command (an asynchronous command would otherwise get /dev/null). */
const GROUP_SUPERVISOR = 'exec 3<&0; trap "kill -KILL 0" TERM; "$@" <&3 3<&- & wait $!; exit $?';

export function deathGuard(log: Logger): DeathGuard {
  const none = (command: string, args: string[]) => ({ command, args });
  if (process.platform !== 'linux') {
    log.info(`no parent-death signal on ${process.platform}: a sandbox child outlives a crashed host until its code ends`);
    return { exec: none, group: none, enforced: false };
  }
  const setpriv = which('setpriv') ?? (isExecutableFile('/usr/bin/setpriv') ? '/usr/bin/setpriv' : undefined);
  const shell = isExecutableFile('/bin/sh') ? '/bin/sh' : which('sh');
  if (!setpriv || !shell) {
    log.warn('setpriv (util-linux) or sh was not found: a sandbox child outlives a crashed host until its CPU-time limit');
    return { exec: none, group: none, enforced: false };
  }
  return {
    exec: (command, args) => ({ command: setpriv, args: ['--pdeathsig', 'SIGKILL', '--', command, ...args] }),
    group: (command, args) => ({
      command: setpriv,
      args: ['--pdeathsig', 'SIGTERM', '--', shell, '-c', GROUP_SUPERVISOR, 'airlock-sandbox', command, ...args],
    }),
    enforced: true,
  };
}

/**
 * The child's whole environment. Nothing is inherited: a fixed PATH (tools
 * only, no secrets), HOME and TMPDIR pointing at the run's own directory, a
 * UTF-8 locale, and what the engine adds (DENO_DIR…).
 */
export function childEnv(runDir: string, extra: Record<string, string> = {}, path: string = FALLBACK_PATH): Record<string, string> {
  const env: Record<string, string> = { PATH: path, HOME: runDir, TMPDIR: runDir, LANG: 'C.UTF-8', NO_COLOR: '1', ...extra };
  if (process.platform === 'win32') {
    // Windows programs need these to start at all; they hold no secret.
    for (const key of ['SystemRoot', 'SYSTEMROOT', 'windir']) {
      const value = process.env[key];
      if (value) env[key] = value;
    }
  }
  return env;
}

/** Running Airlock's own binary as Node under Electron needs ELECTRON_RUN_AS_NODE. */
export function nodeRuntimeEnv(nodePath: string): Record<string, string> {
  return process.versions.electron !== undefined && nodePath === process.execPath ? { ELECTRON_RUN_AS_NODE: '1' } : {};
}

/** The directory a runtime binary really lives in (symlinks resolved): it must stay readable inside srt. */
export function realDir(path: string): string {
  try {
    return dirname(realpathSync(path));
  } catch {
    return dirname(path);
  }
}
