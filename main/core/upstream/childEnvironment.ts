// The environment a stdio MCP server is started with: empty but for what its
// entry names. Variables of Airlock's own environment pass only when listed
// (`env`); secrets come from the keychain by name (`secrets`), never from a
// file; PATH is the one a login shell would give, so a desktop app started
// from the dock (whose PATH is the system's bare one) still finds `npx` and
// `uvx` — the failure desktop MCP hosts are best known for (`spawn npx
// ENOENT`).
import { spawn } from 'node:child_process';

export interface ChildEnvironmentInput {
  /** Variables passed through from Airlock's environment, by name. */
  pass: readonly string[];
  /** Values of the entry's secrets, by name, as read from the keychain. */
  secrets: Readonly<Record<string, string>>;
  /** Airlock's own environment. */
  parent: Readonly<Record<string, string | undefined>>;
  /** PATH as a login shell gives it (undefined: the parent's). */
  loginPath?: string;
}

/** The child's environment: PATH, the variables passed through that are set, then the secrets (which win). */
export function childEnvironment(input: ChildEnvironmentInput): Record<string, string> {
  const env: Record<string, string> = {};
  const path = input.loginPath ?? input.parent.PATH;
  if (path) env.PATH = path;
  for (const name of input.pass) {
    const value = input.parent[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(input.secrets)) env[name] = value;
  return env;
}

/**
 * PATH as the person's login shell sets it ($SHELL -ilc), within `timeoutMs`; undefined where there is no such
 * shell (Windows), it fails, or it says nothing usable (every entry must be an absolute path). A marker keeps
 * what a noisy profile prints out of the answer. The shell runs in a session of its own with no terminal and no
 * stdin — a profile that asks a question gets end-of-input, and job control never stops Airlock — and is killed
 * with its group at the deadline (an interactive shell ignores SIGTERM).
 */
export function loginShellPath(options: { shell?: string; timeoutMs?: number } = {}): Promise<string | undefined> {
  const shell = options.shell ?? process.env.SHELL;
  if (process.platform === 'win32' || !shell) return Promise.resolve(undefined);
  const marker = '__AIRLOCK_PATH__';
  return new Promise((resolve) => {
    let out = '';
    let done = false;
    const finish = (value: string | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
      resolve(value);
    };
    const child = spawn(shell, ['-ilc', `printf '\\n${marker}%s${marker}\\n' "$PATH"`], {
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
      env: process.env,
    });
    const timer = setTimeout(() => finish(undefined), options.timeoutMs ?? 3000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.length > 1024 * 1024) finish(undefined);
      const m = new RegExp(`${marker}(.*)${marker}`).exec(out);
      if (m) finish(usablePath(m[1]!));
    });
    child.once('error', () => finish(undefined));
    // 'close', not 'exit': the shell may exit before its last output is read ('close' comes after stdout has ended).
    child.once('close', () => finish(usablePath(new RegExp(`${marker}(.*)${marker}`).exec(out)?.[1] ?? '')));
  });
}

/** A PATH whose every entry is an absolute path; undefined otherwise (a shell that did not expand "$PATH"). */
function usablePath(path: string): string | undefined {
  const entries = path.split(':').filter((e) => e.length > 0);
  return entries.length > 0 && entries.every((e) => e.startsWith('/')) ? path : undefined;
}
