// The environment a stdio MCP server is started with: empty but for what its
// entry names. Variables of Airlock's own environment pass only when listed
// (`env`); secrets come from the keychain by name (`secrets`), never from a
// file; PATH is the one a login shell would give, so a desktop app started
// from the dock (whose PATH is the system's bare one) still finds `npx` and
// `uvx` — the failure desktop MCP hosts are best known for (`spawn npx
// ENOENT`).
import { execFile } from 'node:child_process';

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
 * PATH as the person's login shell sets it ($SHELL -ilc), read once, within `timeoutMs`; undefined where there
 * is no such shell (Windows), it fails, or it says nothing usable. A marker line keeps what a noisy profile
 * prints out of the answer.
 */
export function loginShellPath(options: { shell?: string; timeoutMs?: number } = {}): Promise<string | undefined> {
  const shell = options.shell ?? process.env.SHELL;
  if (process.platform === 'win32' || !shell) return Promise.resolve(undefined);
  const marker = '__AIRLOCK_PATH__';
  return new Promise((resolve) => {
    execFile(shell, ['-ilc', `printf '\\n${marker}%s${marker}\\n' "$PATH"`], { timeout: options.timeoutMs ?? 3000, env: process.env }, (error, stdout) => {
      if (error) return resolve(undefined);
      const m = new RegExp(`${marker}(.*)${marker}`).exec(String(stdout));
      resolve(m && m[1]!.length > 0 ? m[1] : undefined);
    });
  });
}
