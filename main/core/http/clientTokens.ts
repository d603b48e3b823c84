// HTTP clients' own tokens: each registered client gets a bearer token of
// its own, so the companion knows which client calls without trusting a name
// the client declares, and one client's token can be revoked without
// touching the others. Only a hash of each token is kept
// (`client-tokens.json` in the data dir, mode 0600, written whole and
// renamed); the token itself is shown once, when it is made. A token may
// carry a scope (the APIs its client reaches): the request's URL can narrow
// it, never widen it.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { AirlockError } from '../util/errors.ts';
import { FileCache } from '../util/fileCache.ts';

const entrySchema = z
  .object({
    id: z.string().min(1),
    name: z.string().min(1).max(100),
    /** sha256 of the token, hex. */
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    scope: z.array(z.string().min(1)).min(1).optional(),
    createdAt: z.string(),
  })
  .strict();
const fileSchema = z.object({ version: z.literal(1), tokens: z.array(entrySchema) }).strict();

export type ClientTokenEntry = z.infer<typeof entrySchema>;

/** What is shown of a token: never the token, nor its hash; its fingerprint names it. */
export interface ClientTokenView {
  id: string;
  name: string;
  scope?: string[];
  createdAt: string;
  /** The first 12 hex digits of the token's sha256. */
  fingerprint: string;
}

export interface ClientTokenStore {
  list(): ClientTokenView[];
  /** Makes a token for a client; the token is returned once and never kept. */
  create(name: string, scope?: readonly string[]): { token: string; view: ClientTokenView };
  /** Revokes a token by its id or name; false when there is none. */
  revoke(idOrName: string): boolean;
  /** The client a bearer token belongs to, or undefined. */
  match(token: string): ClientTokenView | undefined;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

function viewOf(e: ClientTokenEntry): ClientTokenView {
  return { id: e.id, name: e.name, ...(e.scope ? { scope: [...e.scope] } : {}), createdAt: e.createdAt, fingerprint: e.hash.slice(0, 12) };
}

/** How every client token begins (the companion's own token is 64 hex digits). */
const CLIENT_TOKEN_PREFIX = 'alc_';

/** The token store in `file`; a missing file is an empty store, a broken one an error that says where. */
export function openClientTokens(file: string, now: () => Date = () => new Date()): ClientTokenStore {
  // Read again whenever the file changed: a token made or revoked by the CLI beside a running companion counts at once.
  const cache = new FileCache(file, () => read(file));

  function read(path: string): ClientTokenEntry[] {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AirlockError('config', `${path} is not JSON`, { hint: 'restore it from a backup, or delete it (every client token is then revoked)' });
    }
    const checked = fileSchema.safeParse(parsed);
    if (!checked.success)
      throw new AirlockError('config', `${path} is not a client token file: ${checked.error.issues[0]?.message ?? 'invalid'}`, {
        hint: 'restore it from a backup, or delete it (every client token is then revoked)',
      });
    return checked.data.tokens;
  }

  function save(next: ClientTokenEntry[]): void {
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ version: 1, tokens: next }, null, 2) + '\n', { mode: 0o600 });
    renameSync(temp, file);
  }

  return {
    list: () => cache.get().map(viewOf),
    create(name, scope) {
      const trimmed = name.trim();
      if (!/^[\w .@-]{1,100}$/.test(trimmed))
        throw new AirlockError('usage', `client name ${JSON.stringify(name)}: use 1 to 100 letters, digits, spaces, '.', '-', '_' or '@'`);
      if (cache.get().some((e) => e.name === trimmed))
        throw new AirlockError('conflict', `a token for '${trimmed}' exists already`, { hint: `revoke it first (airlock clients token revoke ${trimmed})` });
      const token = `${CLIENT_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
      const entry: ClientTokenEntry = {
        id: randomUUID(),
        name: trimmed,
        hash: hashOf(token),
        ...(scope && scope.length > 0 ? { scope: [...new Set(scope)] } : {}),
        createdAt: now().toISOString(),
      };
      // Read again first: another process (the CLI beside the companion) may have changed the file.
      save([...read(file), entry]);
      return { token, view: viewOf(entry) };
    },
    revoke(idOrName) {
      const current = read(file);
      const next = current.filter((e) => e.id !== idOrName && e.name !== idOrName);
      if (next.length === current.length) return false;
      save(next);
      return true;
    },
    match(token) {
      // Not of a client token's form (the companion's own token is hex): no entry can match, and no file is read.
      if (!token.startsWith(CLIENT_TOKEN_PREFIX)) return undefined;
      const hash = Buffer.from(hashOf(token), 'hex');
      // Every entry is compared, in constant time: which one matched does not show in the time taken.
      let found: ClientTokenEntry | undefined;
      for (const e of cache.get()) if (timingSafeEqual(hash, Buffer.from(e.hash, 'hex')) && !found) found = e;
      return found ? viewOf(found) : undefined;
    },
  };
}
