// Registering Airlock in a client: detect it (installed, where its file is,
// registered — with the scope it carries — or outdated), show the change as a
// diff before making it, make it — with the client's own CLI when it is on
// PATH, else a minimal edit of its file — atomically and with a timestamped
// backup, and undo the last change. A file that does not parse is never
// written. A registration may carry a scope (the APIs its session reaches:
// `--api NAME` after `stdio`); adding again with another scope updates it.
import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createTwoFilesPatch } from 'diff';
import { INLINE_SECRET_MIN_CHARS, createRedactor } from '../log/redactor.ts';
import { writeFileAtomic } from '../util/atomicWrite.ts';
import { AirlockError } from '../util/errors.ts';
import { type ClientDescriptor, type ClientEnv, type ClientId, type LaunchCommand, CLIENTS, clientById } from './clientCatalog.ts';
import { BrokenConfigError, editConfig, readConfig, readEntry } from './configText.ts';
import { checkScope, sameScope, scopeOfEntry, scopedLaunch } from './registrationScope.ts';

export type ClientState = 'not-installed' | 'not-registered' | 'registered' | 'outdated' | 'broken';

export interface ClientStatus {
  id: ClientId;
  label: string;
  state: ClientState;
  /** The config file in use (or where a new one goes); absent when the client has none on this platform. */
  file?: string;
  /** Why not installed, what is broken or outdated. */
  reason?: string;
  /** How a change is made: the client's CLI (on PATH) or an edit of its file. */
  via: 'cli' | 'file';
  afterwards: string;
  elicitation: boolean;
  /** When Airlock last changed this client's file: undo restores it as it was before. Absent when there is nothing to undo. */
  lastChangeAt?: string;
  /** A deep link the client opens to add the server itself (Cursor, VS Code, LM Studio). */
  installLink?: string;
  /** The scope of the registration (registered only): the APIs its session reaches. Absent: every API served. */
  apis?: string[];
}

export interface ChangeResult {
  id: ClientId;
  action: 'add' | 'remove';
  changed: boolean;
  dryRun: boolean;
  file: string;
  diff: string;
  via: 'cli' | 'file';
  /** The client CLI's command line, when it made (or would make) the change. */
  command?: string[];
  backup?: string;
  afterwards: string;
  /** The scope an add writes (or would write). Absent: every API served. */
  apis?: string[];
}

export interface ChangeOptions {
  dryRun?: boolean;
  /** add: the APIs the client reaches (`--api` after `stdio`). Absent or empty: every API served. */
  apis?: readonly string[];
}

export interface RegistrarOptions {
  env: ClientEnv;
  /** Where backups of changed files go (<data dir>/client-backups). */
  backupDir: string;
  launch: LaunchCommand;
  /** Whether `launch` honours `--api NAME` (default true); when not, an add with a scope is refused. */
  scopable?: boolean;
  /** The entry's name in the client (default `airlock`). */
  name?: string;
  /** A client CLI's absolute path, when it is on PATH. */
  which(bin: string): string | undefined;
  runCli(path: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  now?: () => Date;
}

interface Backup {
  file: string;
  existed: boolean;
  text: string;
  at: string;
}

export function createRegistrar(options: RegistrarOptions) {
  const name = options.name ?? 'airlock';
  const now = options.now ?? (() => new Date());

  function descriptor(id: string): ClientDescriptor {
    const d = clientById(id);
    if (!d) throw new AirlockError('usage', `unknown client '${id}'`, { hint: `one of: ${CLIENTS.map((c) => c.id).join(', ')}` });
    return d;
  }

  function fileOf(d: ClientDescriptor): string | undefined {
    const paths = d.paths(options.env);
    return paths.find((p) => existsSync(p)) ?? paths[0];
  }

  function cliPath(d: ClientDescriptor): string | undefined {
    return d.cli ? options.which(d.cli.bin) : undefined;
  }

  async function readText(file: string): Promise<string | undefined> {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  function status(d: ClientDescriptor, text: string | undefined, file: string | undefined): ClientStatus {
    const base = {
      id: d.id,
      label: d.label,
      via: cliPath(d) ? ('cli' as const) : ('file' as const),
      afterwards: d.afterwards,
      elicitation: d.elicitation,
      ...(d.installLink ? { installLink: d.installLink(name, options.launch) } : {}),
    };
    if (!file)
      return { ...base, state: 'not-installed', reason: d.unsupported?.(options.env) ?? `${d.label} keeps no configuration file on ${options.env.platform}` };
    if (text === undefined && !existsSync(dirname(file)) && !cliPath(d)) {
      return { ...base, state: 'not-installed', file, reason: `no ${dirname(file)}${d.cli ? ` and no \`${d.cli.bin}\` on PATH` : ''}` };
    }
    let entry: unknown;
    try {
      entry = readEntry(readConfig(text ?? '', d.format, file), d.root, name);
    } catch (error) {
      if (error instanceof BrokenConfigError) return { ...base, state: 'broken', file, reason: error.message };
      throw error;
    }
    if (entry === undefined) return { ...base, state: 'not-registered', file };
    const command = (entry as { command?: unknown }).command;
    if (typeof command === 'string' && !existsSync(command)) return { ...base, state: 'outdated', file, reason: `it runs ${command}, which does not exist` };
    // What this install would write with the scope the entry carries: a registration with a scope is registered too.
    const apis = scopeOfEntry(entry);
    let wanted: Record<string, unknown> | undefined;
    try {
      wanted = d.entry(scopedLaunch(options.launch, apis));
    } catch {
      wanted = undefined; // a name that is not an API name: rewrite it
    }
    if (!wanted || !isDeepStrictEqual(pick(entry, Object.keys(wanted)), wanted)) {
      return { ...base, state: 'outdated', file, reason: `it runs ${[command, ...((entry as { args?: unknown[] }).args ?? [])].join(' ')}` };
    }
    return { ...base, state: 'registered', file, ...(apis ? { apis } : {}) };
  }

  async function list(): Promise<ClientStatus[]> {
    return Promise.all(
      CLIENTS.map(async (d) => {
        const file = fileOf(d);
        const at = await lastChange(d);
        return { ...status(d, file ? await readText(file) : undefined, file), ...(at ? { lastChangeAt: at } : {}) };
      }),
    );
  }

  /** The time of the change undo would revert, if any. */
  async function lastChange(d: ClientDescriptor): Promise<string | undefined> {
    const dir = join(options.backupDir, d.id);
    const last = (await readdir(dir).catch(() => [] as string[]))
      .filter((n) => n.endsWith('.json'))
      .sort()
      .at(-1);
    if (!last) return undefined;
    try {
      return (JSON.parse(await readFile(join(dir, last), 'utf8')) as Backup).at;
    } catch {
      return undefined;
    }
  }

  async function saveBackup(d: ClientDescriptor, file: string, before: string | undefined): Promise<string> {
    const dir = join(options.backupDir, d.id);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const at = now().toISOString();
    const path = join(dir, `${at.replace(/[:.]/g, '-')}.json`);
    const backup: Backup = { file, existed: before !== undefined, text: before ?? '', at };
    await writeFile(path, JSON.stringify(backup) + '\n', { mode: 0o600 });
    return path;
  }

  async function write(file: string, text: string): Promise<void> {
    const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o600;
    await writeFileAtomic(file, text, { mode });
  }

  async function change(id: string, action: 'add' | 'remove', opts: ChangeOptions = {}): Promise<ChangeResult> {
    const d = descriptor(id);
    const scope = action === 'add' ? checkScope(opts.apis) : undefined;
    if (scope && options.scopable === false) {
      throw new AirlockError('unavailable', `this command (${options.launch.command}) does not take --api yet, so it cannot limit a client to some APIs`, {
        hint: 'register without a scope, or with `airlock clients add NAME --api API` from a terminal',
      });
    }
    const launch = scopedLaunch(options.launch, scope);
    const file = fileOf(d);
    if (!file) throw new AirlockError('unavailable', status(d, undefined, undefined).reason!);
    const before = await readText(file);
    const entry = action === 'add' ? d.entry(launch) : undefined;
    const current = status(d, before, file);
    if (current.state === 'not-installed')
      throw new AirlockError('unavailable', `${d.label} does not seem to be installed: ${current.reason}`, { hint: 'install it first' });
    // Throws (and writes nothing) when the file does not parse.
    const planned = editConfig(before ?? '', d.format, file, d.root, name, entry);
    // Registered with another scope: the entry is replaced, as an outdated one is.
    const registered = current.state === 'registered' && sameScope(current.apis, scope);
    const replaced = current.state === 'outdated' || (current.state === 'registered' && !registered);
    const unchanged = action === 'add' ? registered : current.state === 'not-registered';
    const cli = cliPath(d);
    const cliArgs = d.cli ? (action === 'add' ? d.cli.add(name, launch) : d.cli.remove?.(name)) : undefined;
    const command = cli && cliArgs ? [cli, ...cliArgs] : undefined;
    const result = {
      id: d.id,
      action,
      dryRun: opts.dryRun === true,
      file,
      via: command ? ('cli' as const) : ('file' as const),
      ...(command ? { command } : {}),
      afterwards: d.afterwards,
      ...(scope ? { apis: scope } : {}),
    };
    if (unchanged) return { ...result, changed: false, diff: '' };
    if (opts.dryRun) return { ...result, changed: true, diff: patch(d, file, before ?? '', planned) };
    const backup = await saveBackup(d, file, before);
    if (command && d.cli) {
      // The client's own CLI: an outdated entry (or one with another scope) goes first (`add` refuses to overwrite one) — by the CLI, or from the file.
      if (action === 'add' && replaced) {
        if (d.cli.remove) await options.runCli(command[0]!, d.cli.remove(name));
        else await write(file, editConfig(before ?? '', d.format, file, d.root, name, undefined));
      }
      const r = await options.runCli(command[0]!, command.slice(1));
      if (r.code !== 0) {
        throw new AirlockError(
          'internal',
          `${d.cli.bin} ${command.slice(1, 3).join(' ')} failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().slice(0, 500)}`,
        );
      }
    } else {
      await write(file, planned);
    }
    const after = (await readText(file)) ?? '';
    return { ...result, changed: true, diff: patch(d, file, before ?? '', after), backup };
  }

  /** The MCP servers a client's file holds (every entry under its root but Airlock's own), as written. */
  async function servers(id: string): Promise<{ id: ClientId; label: string; file?: string; entries: Record<string, unknown> }> {
    const d = descriptor(id);
    const file = fileOf(d);
    const text = file ? await readText(file) : undefined;
    if (!file || text === undefined) return { id: d.id, label: d.label, entries: {} };
    const root = readEntry(readConfig(text, d.format, file), d.root.slice(0, -1), d.root.at(-1)!);
    const entries: Record<string, unknown> = {};
    if (root && typeof root === 'object' && !Array.isArray(root)) {
      for (const [key, value] of Object.entries(root)) if (key !== name) entries[key] = value;
    }
    return { id: d.id, label: d.label, file, entries };
  }

  /**
   * Takes these servers out of the client's file and makes sure Airlock's entry is in it (issue 20: the client
   * keeps one entry, Airlock): previewed with dryRun, the file backed up first, undone by `undo`. Always an edit of
   * the file (a client's CLI adds and removes one server at a time).
   */
  async function moveBehind(id: string, names: readonly string[], opts: { dryRun?: boolean } = {}): Promise<ChangeResult> {
    const d = descriptor(id);
    const file = fileOf(d);
    if (!file) throw new AirlockError('unavailable', status(d, undefined, undefined).reason!);
    const before = (await readText(file)) ?? '';
    let planned = before;
    for (const server of names) planned = editConfig(planned, d.format, file, d.root, server, undefined);
    const current = status(d, planned, file);
    if (current.state !== 'registered') planned = editConfig(planned, d.format, file, d.root, name, d.entry(options.launch));
    const result = { id: d.id, action: 'add' as const, dryRun: opts.dryRun === true, file, via: 'file' as const, afterwards: d.afterwards };
    if (planned === before) return { ...result, changed: false, diff: '' };
    if (opts.dryRun) return { ...result, changed: true, diff: patch(d, file, before, planned) };
    const backup = await saveBackup(d, file, before);
    await write(file, planned);
    return { ...result, changed: true, diff: patch(d, file, before, planned), backup };
  }

  /** Restores the file as it was before the last change made here. */
  async function undo(id: string): Promise<{ id: ClientId; file: string; backup: string; restored: 'previous' | 'removed' }> {
    const d = descriptor(id);
    const dir = join(options.backupDir, d.id);
    const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json')).sort();
    const last = names.at(-1);
    if (!last)
      throw new AirlockError('not_found', `no change to undo for ${d.label}`, {
        hint: 'undo restores the file as it was before the last `airlock clients add` or `remove`',
      });
    const path = join(dir, last);
    const backup = JSON.parse(await readFile(path, 'utf8')) as Backup;
    if (backup.existed) await write(backup.file, backup.text);
    else await rm(backup.file, { force: true });
    await rm(path);
    return { id: d.id, file: backup.file, backup: path, restored: backup.existed ? 'previous' : 'removed' };
  }

  return {
    list,
    add: (id: string, o?: ChangeOptions) => change(id, 'add', o),
    remove: (id: string, o?: { dryRun?: boolean }) => change(id, 'remove', o),
    servers,
    moveBehind,
    undo,
  };
}

export type Registrar = ReturnType<typeof createRegistrar>;

function pick(value: unknown, keys: string[]): Record<string, unknown> {
  const record = (value ?? {}) as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => k in record).map((k) => [k, record[k]]));
}

/**
 * The change to a client's file as a diff, with every value the file gives a server inline (its env, its headers:
 * secrets as often as not) scrubbed from it, on the lines that change and the lines around them alike.
 */
function patch(d: ClientDescriptor, file: string, before: string, after: string): string {
  const scrub = createRedactor([...inlineValues(d, file, before), ...inlineValues(d, file, after)]);
  return scrub(createTwoFilesPatch(file, file, before, after, 'before', 'after'));
}

/** The values a client's file gives its servers inline, under any key that names an environment or headers. */
function inlineValues(d: ClientDescriptor, file: string, text: string): string[] {
  let root: unknown;
  try {
    root = readEntry(readConfig(text, d.format, file), d.root.slice(0, -1), d.root.at(-1)!);
  } catch {
    return [];
  }
  if (!root || typeof root !== 'object') return [];
  const out: string[] = [];
  for (const server of Object.values(root as Record<string, unknown>)) {
    if (!server || typeof server !== 'object') continue;
    for (const [key, value] of Object.entries(server as Record<string, unknown>)) {
      if (!/env|headers/i.test(key) || !value || typeof value !== 'object') continue;
      for (const v of Object.values(value as Record<string, unknown>)) if (typeof v === 'string' && v.length >= INLINE_SECRET_MIN_CHARS) out.push(v);
    }
  }
  return out;
}
