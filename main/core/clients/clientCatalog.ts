// The MCP clients Airlock registers itself in: where each keeps its
// configuration (per platform), in which format, under which key, the shape
// of a stdio entry, its own CLI when it has one, and what the person must do
// afterwards. Facts from each client's own documentation; paths are
// computed from a ClientEnv so tests
// run against a temporary home.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigFormat } from './configText.ts';

import { CLIENT_IDS } from '../../../contract/clients.ts';

export { CLIENT_IDS };
export type ClientId = (typeof CLIENT_IDS)[number];

export interface ClientEnv {
  home: string;
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
}

/** What a stdio registration runs: an absolute path and its arguments, no secret. */
export interface LaunchCommand {
  command: string;
  args: string[];
}

export interface ClientCli {
  bin: string;
  add(name: string, launch: LaunchCommand): string[];
  /** Absent when the CLI cannot remove a server (VS Code): then the file is edited. */
  remove?(name: string): string[];
}

export interface ClientDescriptor {
  id: ClientId;
  label: string;
  format: ConfigFormat;
  /** Candidate files, the one in use first when several exist; a new file goes to the first. Empty: no file on this platform (`unsupported` says why). */
  paths(env: ClientEnv): string[];
  unsupported?(env: ClientEnv): string | undefined;
  /** Key path to the map of servers. */
  root: readonly string[];
  entry(launch: LaunchCommand): Record<string, unknown>;
  /** The client's own CLI, used when it is on PATH. */
  cli?: ClientCli;
  /** What the person must do for the client to see the change. */
  afterwards: string;
  /** Whether the client can ask its user on Airlock's behalf (MCP elicitation). */
  elicitation: boolean;
  /** A deep link that makes the client add the server itself, where it has one. */
  installLink?(name: string, launch: LaunchCommand): string;
}

const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

const appData = (env: ClientEnv) => env.env.APPDATA ?? join(env.home, 'AppData', 'Roaming');
const localAppData = (env: ClientEnv) => env.env.LOCALAPPDATA ?? join(env.home, 'AppData', 'Local');
const xdgConfig = (env: ClientEnv) => env.env.XDG_CONFIG_HOME ?? join(env.home, '.config');

/** VS Code's (or Insiders') user folder. */
function codeUser(env: ClientEnv, product: 'Code' | 'Code - Insiders'): string {
  if (env.platform === 'darwin') return join(env.home, 'Library', 'Application Support', product, 'User');
  if (env.platform === 'win32') return join(appData(env), product, 'User');
  return join(xdgConfig(env), product, 'User');
}

/** Claude Desktop from the Microsoft Store / MSIX keeps its files in a per-package folder. */
function msixClaude(env: ClientEnv): string[] {
  const packages = join(localAppData(env), 'Packages');
  try {
    return readdirSync(packages)
      .filter((name) => name.startsWith('Claude_'))
      .map((name) => join(packages, name, 'LocalCache', 'Roaming', 'Claude', 'claude_desktop_config.json'));
  } catch {
    return [];
  }
}

const plainEntry = (launch: LaunchCommand) => ({ command: launch.command, args: launch.args });
const typedEntry = (launch: LaunchCommand) => ({ type: 'stdio', command: launch.command, args: launch.args });
const RESTART = 'restart it (or reload its MCP servers) to pick the change up';

export const CLIENTS: readonly ClientDescriptor[] = [
  {
    id: 'claude-desktop',
    label: 'Claude Desktop',
    format: 'json',
    paths: (env) =>
      env.platform === 'darwin'
        ? [join(env.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')]
        : env.platform === 'win32'
          ? [...msixClaude(env), join(appData(env), 'Claude', 'claude_desktop_config.json')]
          : // No official Linux build: community builds read this file.
            [join(xdgConfig(env), 'Claude', 'claude_desktop_config.json')],
    root: ['mcpServers'],
    entry: plainEntry,
    afterwards:
      'quit Claude Desktop from its tray or menu bar icon (closing the window is not enough: it rewrites this file when it quits), then start it again',
    elicitation: false,
  },
  {
    id: 'claude-code',
    label: 'Claude Code',
    format: 'json',
    paths: (env) => [join(env.home, '.claude.json')],
    root: ['mcpServers'],
    entry: (launch) => ({ ...typedEntry(launch), env: {} }),
    cli: {
      bin: 'claude',
      add: (name, launch) => ['mcp', 'add', '--scope', 'user', name, '--', launch.command, ...launch.args],
      remove: (name) => ['mcp', 'remove', '--scope', 'user', name],
    },
    afterwards: 'start a new Claude Code session (`/mcp` lists it)',
    elicitation: true,
  },
  {
    id: 'cursor',
    label: 'Cursor',
    format: 'json',
    paths: (env) => [join(env.home, '.cursor', 'mcp.json')],
    root: ['mcpServers'],
    entry: plainEntry,
    afterwards: 'Cursor picks it up in Settings → MCP (toggle it on if it is off)',
    installLink: (name, launch) =>
      `cursor://anysphere.cursor-deeplink/mcp/install?name=${encodeURIComponent(name)}&config=${encodeURIComponent(base64Json(plainEntry(launch)))}`,
    elicitation: true,
  },
  {
    id: 'vscode',
    label: 'VS Code',
    format: 'jsonc',
    paths: (env) => [join(codeUser(env, 'Code'), 'mcp.json')],
    root: ['servers'],
    entry: typedEntry,
    cli: { bin: 'code', add: (name, launch) => ['--add-mcp', JSON.stringify({ name, ...typedEntry(launch) })] },
    afterwards: `VS Code watches the file; ${RESTART} if it does not appear under MCP: List Servers`,
    installLink: (name, launch) => `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name, ...typedEntry(launch) }))}`,
    elicitation: true,
  },
  {
    id: 'vscode-insiders',
    label: 'VS Code Insiders',
    format: 'jsonc',
    paths: (env) => [join(codeUser(env, 'Code - Insiders'), 'mcp.json')],
    root: ['servers'],
    entry: typedEntry,
    cli: { bin: 'code-insiders', add: (name, launch) => ['--add-mcp', JSON.stringify({ name, ...typedEntry(launch) })] },
    afterwards: `VS Code Insiders watches the file; ${RESTART} if it does not appear under MCP: List Servers`,
    installLink: (name, launch) => `vscode-insiders:mcp/install?${encodeURIComponent(JSON.stringify({ name, ...typedEntry(launch) }))}`,
    elicitation: true,
  },
  {
    id: 'windsurf',
    label: 'Windsurf',
    format: 'json',
    paths: (env) => [join(env.home, '.codeium', 'windsurf', 'mcp_config.json')],
    root: ['mcpServers'],
    entry: plainEntry,
    afterwards: `press Refresh in Windsurf's MCP panel, or ${RESTART}`,
    elicitation: false,
  },
  {
    id: 'codex',
    label: 'OpenAI Codex CLI',
    format: 'toml',
    paths: (env) => [join(env.env.CODEX_HOME ?? join(env.home, '.codex'), 'config.toml')],
    root: ['mcp_servers'],
    entry: plainEntry,
    cli: {
      bin: 'codex',
      add: (name, launch) => ['mcp', 'add', name, '--', launch.command, ...launch.args],
      remove: (name) => ['mcp', 'remove', name],
    },
    afterwards: 'start a new Codex session',
    elicitation: true,
  },
  {
    id: 'gemini',
    label: 'Gemini CLI',
    format: 'json',
    paths: (env) => [join(env.home, '.gemini', 'settings.json')],
    root: ['mcpServers'],
    entry: plainEntry,
    cli: {
      bin: 'gemini',
      add: (name, launch) => ['mcp', 'add', '--scope', 'user', name, launch.command, ...launch.args],
      remove: (name) => ['mcp', 'remove', '--scope', 'user', name],
    },
    afterwards: 'start a new Gemini CLI session (`/mcp` lists it)',
    elicitation: false,
  },
  {
    id: 'zed',
    label: 'Zed',
    format: 'jsonc',
    paths: (env) => [env.platform === 'win32' ? join(appData(env), 'Zed', 'settings.json') : join(xdgConfig(env), 'zed', 'settings.json')],
    root: ['context_servers'],
    entry: plainEntry,
    afterwards: 'Zed reloads its settings on save; check the Agent panel',
    elicitation: false,
  },
  {
    id: 'lmstudio',
    label: 'LM Studio',
    format: 'json',
    paths: (env) => [join(env.home, '.lmstudio', 'mcp.json')],
    root: ['mcpServers'],
    entry: plainEntry,
    afterwards: `LM Studio reloads mcp.json; ${RESTART} if it does not`,
    installLink: (name, launch) => `lmstudio://add_mcp?name=${encodeURIComponent(name)}&config=${encodeURIComponent(base64Json(plainEntry(launch)))}`,
    elicitation: false,
  },
  {
    id: 'cline',
    label: 'Cline (VS Code extension)',
    format: 'json',
    paths: (env) => [join(codeUser(env, 'Code'), 'globalStorage', 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json')],
    root: ['mcpServers'],
    entry: (launch) => ({ ...plainEntry(launch), disabled: false }),
    afterwards: "Cline watches the file; check Cline's MCP Servers view",
    elicitation: false,
  },
];

export function clientById(id: string): ClientDescriptor | undefined {
  return CLIENTS.find((c) => c.id === id);
}
