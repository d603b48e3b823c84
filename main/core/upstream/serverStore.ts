// The MCP servers Airlock connects to, in `<data dir>/servers.json`:
// `{ "version": 1, "servers": { "<name>": <entry> } }` (serverEntry.ts). Read
// whole and written whole, atomically (0600): a crash leaves the old file or
// the new. A file that cannot be read is refused with the line to fix, never
// overwritten.
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomicWrite.ts';
import { FileCache } from '../util/fileCache.ts';
import { firstIssue, readJsonFile } from '../util/jsonFile.ts';
import { AirlockError } from '../util/errors.ts';
import { SERVER_NAME, commandProblem, serverEntrySchema, type ServerEntry } from './serverEntry.ts';
import type { ToolPolicy } from './toolPolicy.ts';

const FILE_VERSION = 1;

const fileSchema = z
  .object({
    version: z.literal(FILE_VERSION),
    servers: z.record(z.string().regex(SERVER_NAME, 'is not a server name'), serverEntrySchema),
  })
  .strict();

export interface NamedServer {
  name: string;
  entry: ServerEntry;
}

export class ServerStore {
  private readonly file: string;
  private readonly cache: FileCache<Record<string, ServerEntry>>;

  constructor(file: string) {
    this.file = file;
    this.cache = new FileCache(file, () => this.parseFile());
  }

  /** Every server, in name order. */
  list(): NamedServer[] {
    const servers = this.read();
    return Object.keys(servers)
      .sort()
      .map((name) => ({ name, entry: servers[name]! }));
  }

  get(name: string): ServerEntry | undefined {
    const servers = this.read();
    return Object.hasOwn(servers, name) ? servers[name] : undefined;
  }

  /** Adds a server; a name taken is refused unless `replace`. */
  async add(name: string, entry: ServerEntry, options: { replace?: boolean } = {}): Promise<void> {
    checkName(name);
    const parsed = serverEntrySchema.safeParse(entry);
    if (!parsed.success) throw new AirlockError('usage', `server ${name}: ${firstIssue(parsed.error)}`);
    if (parsed.data.transport === 'stdio') {
      const problem = commandProblem(parsed.data.command);
      if (problem) throw new AirlockError('usage', `server ${name}: the command ${JSON.stringify(parsed.data.command)} ${problem}`);
    }
    const servers = this.read();
    if (Object.hasOwn(servers, name) && !options.replace) {
      throw new AirlockError('usage', `a server named '${name}' exists already`, {
        hint: `remove it first (airlock servers remove ${name}), or pick another name`,
      });
    }
    servers[name] = parsed.data;
    await this.write(servers);
  }

  /** Offers a server's tools to clients directly, or stops; false when there is no such server. */
  async setDirect(name: string, direct: boolean): Promise<boolean> {
    const servers = this.read();
    if (!Object.hasOwn(servers, name)) return false;
    const entry = { ...servers[name]! };
    if (direct) entry.direct = true;
    else delete entry.direct;
    servers[name] = entry;
    await this.write(servers);
    return true;
  }

  /** Turns a server on or off; false when there is no such server. */
  async setEnabled(name: string, enabled: boolean): Promise<boolean> {
    const servers = this.read();
    if (!Object.hasOwn(servers, name)) return false;
    servers[name] = { ...servers[name]!, enabled };
    await this.write(servers);
    return true;
  }

  /** Sets the person's policy for one tool, or (no tool) the server's default; undefined clears it. False: no such server. */
  async setPolicy(name: string, tool: string | undefined, policy: ToolPolicy | undefined): Promise<boolean> {
    if (tool !== undefined && (tool === '__proto__' || tool.length === 0 || tool.length > 200)) {
      throw new AirlockError(
        'usage',
        `a policy cannot be set for a tool named ${JSON.stringify(tool.slice(0, 60))}: a tool name is 1 to 200 characters, and not __proto__`,
      );
    }
    const servers = this.read();
    if (!Object.hasOwn(servers, name)) return false;
    const entry = { ...servers[name]! };
    if (tool === undefined) {
      if (policy) entry.defaultPolicy = policy;
      else delete entry.defaultPolicy;
    } else {
      const tools = { ...entry.toolPolicies };
      if (policy) tools[tool] = policy;
      else delete tools[tool];
      if (Object.keys(tools).length > 0) entry.toolPolicies = tools;
      else delete entry.toolPolicies;
    }
    servers[name] = entry;
    await this.write(servers);
    return true;
  }

  /** Removes a server; false when there was none. */
  async remove(name: string): Promise<boolean> {
    const servers = this.read();
    if (!Object.hasOwn(servers, name)) return false;
    delete servers[name];
    await this.write(servers);
    return true;
  }

  /** A copy of the file's record (parsed again only when the file changed), for the caller to change and write. */
  private read(): Record<string, ServerEntry> {
    return { ...this.cache.get() };
  }

  private parseFile(): Record<string, ServerEntry> {
    return { ...readJsonFile(this.file, fileSchema, 'fix the file, or move it aside to start again')?.servers };
  }

  private async write(servers: Record<string, ServerEntry>): Promise<void> {
    const sorted = Object.fromEntries(
      Object.keys(servers)
        .sort()
        .map((name) => [name, servers[name]]),
    );
    await writeFileAtomic(this.file, JSON.stringify({ version: FILE_VERSION, servers: sorted }, null, 2) + '\n');
  }
}

function checkName(name: string): void {
  if (!SERVER_NAME.test(name)) {
    throw new AirlockError('usage', `'${name}' is not a server name: lowercase letters, digits, - and _, at most 30, starting with a letter or digit`);
  }
}
