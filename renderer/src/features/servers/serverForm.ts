// What the "Add a server" form sends, and where the core's refusal of it is
// shown. The form keeps everything typed in every mode (switching modes loses
// nothing); only the mode chosen is sent: a command's entry, a URL's entry,
// or the pasted JSON as it is (the core reads any client's format and moves
// its inline values into the key store). A refusal names the field it is
// about in its words (`the command "…"`, `"args.0" …`, `the pasted JSON …`):
// it is shown by that field, else by the button.
import { SERVER_NAME } from '../../../../contract/names.ts';
import type { ControlInput } from '../../../../contract/control.ts';
import { isRecord } from '../../../../contract/values.ts';

export type AddMode = 'command' | 'url' | 'json';
export type AddField = 'name' | 'command' | 'args' | 'env' | 'secrets' | 'url' | 'headers' | 'json';

export interface AddDraft {
  mode: AddMode;
  name: string;
  command: string;
  /** One argument a line. */
  args: string;
  /** Names, separated by spaces or commas. */
  env: string;
  secrets: string;
  url: string;
  headers: string;
  allowPrivateNetwork: boolean;
  /** Started with the companion rather than on first use. */
  autostart: boolean;
  json: string;
}

export const EMPTY_DRAFT: AddDraft = {
  mode: 'command',
  name: '',
  command: '',
  args: '',
  env: '',
  secrets: '',
  url: '',
  headers: '',
  allowPrivateNetwork: false,
  autostart: false,
  json: '',
};

/** The fields each mode shows (the name is in every one). */
export const MODE_FIELDS: Record<AddMode, AddField[]> = {
  command: ['name', 'command', 'args', 'env', 'secrets'],
  url: ['name', 'url', 'headers'],
  json: ['name', 'json'],
};

/** Names typed in one field: separated by spaces, commas or line breaks. */
export function namesOf(text: string): string[] {
  return text.split(/[\s,]+/).filter((n) => n !== '');
}

/** Arguments, one a line, as typed (spaces kept); empty lines are not arguments. */
export function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l !== '');
}

/** What servers.add is given for this draft. */
export function addInput(d: AddDraft): ControlInput<'servers.add'> {
  const name = d.name.trim();
  const autostart = d.autostart ? { autostart: true } : {};
  switch (d.mode) {
    case 'command':
      return {
        name,
        entry: { transport: 'stdio', command: d.command.trim(), args: linesOf(d.args), env: namesOf(d.env), secrets: namesOf(d.secrets), ...autostart },
      };
    case 'url':
      return {
        name,
        entry: { transport: 'http', url: d.url.trim(), headers: namesOf(d.headers), allowPrivateNetwork: d.allowPrivateNetwork, ...autostart },
      };
    case 'json':
      return { name, json: d.json };
  }
}

/** What is missing or malformed before asking the core (the core checks the rest, and says which field). */
export function draftProblems(d: AddDraft, taken: readonly string[]): Partial<Record<AddField, string>> {
  const problems: Partial<Record<AddField, string>> = {};
  const name = d.name.trim();
  if (!name) problems.name = 'Give it a name: scripts reach its tools as mcp.<name>.<tool>.';
  else if (!SERVER_NAME.test(name)) problems.name = 'Use lowercase letters, digits, - and _ (at most 30), starting with a letter or digit.';
  else if (taken.includes(name)) problems.name = `A server named ${name} is behind Airlock already: pick another name, or remove that one first.`;
  if (d.mode === 'command' && !d.command.trim()) problems.command = 'Give the command it runs: an absolute path, or a command found on PATH.';
  if (d.mode === 'url' && !d.url.trim()) problems.url = 'Give the URL of its MCP endpoint (http or https).';
  if (d.mode === 'json' && !d.json.trim()) problems.json = 'Paste the server’s entry from a client’s configuration.';
  return problems;
}

/** The field a refusal of servers.add is about, by its words; undefined: the form as a whole. */
export function fieldOfError(mode: AddMode, message: string): AddField | undefined {
  if (/^servers\.add: name:|is not a server name|a server named '[^']*' exists already/.test(message)) return 'name';
  if (mode === 'json') return 'json';
  const path = /"(args|env|secrets|url|headers)(?:\.\d+)?"/.exec(message)?.[1] as AddField | undefined;
  if (path && MODE_FIELDS[mode].includes(path)) return path;
  if (mode === 'command' && /the command /.test(message)) return 'command';
  if (mode === 'url' && /\burl\b|URL/.test(message)) return 'url';
  return undefined;
}

/**
 * A name for a pasted entry that names its server (`{"mcpServers": {"github": {…}}}`, `{"github": {…}}`), made a
 * server name as the core makes an imported one; undefined when it names none.
 */
export function suggestedName(json: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || 'command' in value || 'url' in value || 'serverUrl' in value || 'httpUrl' in value) return undefined;
  const map = ['mcpServers', 'servers', 'context_servers', 'mcp_servers'].map((r) => value[r]).find(isRecord) ?? value;
  const names = Object.keys(map);
  if (names.length !== 1) return undefined;
  const name = names[0]!
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 30)
    .replace(/-+$/, '');
  return SERVER_NAME.test(name) ? name : undefined;
}
