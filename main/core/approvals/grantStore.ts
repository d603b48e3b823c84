// Grants: what an "Allow for …" answer leaves behind, {who} × {until}:
// - session: this client's session — bound to the caller key (the HTTP
//   session the server issued, or the stdio process), never to the client's
//   self-declared name, so another client cannot borrow it; ends with it;
// - client-always: this client until revoked — a name survives a restart and
//   a session does not, so it is bound to the client's own HTTP token when it
//   came with one (clientTokens.ts: a token another client cannot present,
//   revoked with it), else to the name the client declares (another program
//   declaring the same name gets it too: the UI says so; a client with a
//   token of its own is never covered by a grant bound to a name);
// - everyone-session: every client, until Airlock stops;
// - always: every client, until revoked.
// The "until revoked" ones are kept in <data dir>/grants.json. Every grant
// records who gave it, when, when it was last used and how often; every
// change (a use included) is told to the listener, so the screens that show
// grants stay current.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { GRANT_SCOPE_INFO, grantLine, grantSchema, type Grant, type GrantScope } from '../../../contract/approvals.ts';
import { callKindOf, type CallKind } from '../../../contract/calls.ts';
import { writeFileAtomic } from '../util/atomicWrite.ts';
import { AirlockError } from '../util/errors.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import { messageOf } from '../../../contract/values.ts';

const fileSchema = z.object({ version: z.literal(1), grants: z.array(grantSchema) });

export interface GrantKey {
  profile: string;
  operationId: string;
  callerKey: string;
  /** The name the client declared (client-always grants of clients with no token of their own are bound to it). */
  clientName?: string;
  /** The id of the HTTP client's own token it came with (client-always grants are then bound to it). */
  clientTokenId?: string;
}

/** When several grants cover a call, the narrowest one is used (and counted). */
const NARROWEST_FIRST: readonly GrantScope[] = ['session', 'client-always', 'everyone-session', 'always'];

const persisted = (g: { scope: GrantScope }) => GRANT_SCOPE_INFO[g.scope].persisted;

/** Whether the grant covers a call from this caller (profile and operation aside). */
export function grantCovers(g: Grant, caller: { callerKey: string; clientName?: string | undefined; clientTokenId?: string | undefined }): boolean {
  switch (g.scope) {
    case 'session':
      return g.callerKey === caller.callerKey;
    case 'client-always':
      // Bound to a token: that token only. Bound to a name: a caller with no token of its own that declares it.
      if (g.clientTokenId !== undefined) return caller.clientTokenId === g.clientTokenId;
      return caller.clientTokenId === undefined && caller.clientName !== undefined && g.clientName === caller.clientName;
    case 'everyone-session':
    case 'always':
      return true;
  }
}

/** A grant as kept before the kinds, read as what it covers: a tool call's grant said TOOL and mcp://… where an API's has its method and path. */
function withKind(g: Grant): Grant {
  const callKind = callKindOf(g);
  if (callKind === 'api-call') return { ...g, callKind };
  const { method: _method, pathTemplate: _pathTemplate, ...rest } = g;
  return { ...rest, callKind };
}

export interface NewGrant {
  scope: Grant['scope'];
  profile: string;
  operationId: string;
  /** What it covers (absent: an API call). */
  callKind?: CallKind;
  /** An API call's method and path template (none for a tool call). */
  method?: string;
  pathTemplate?: string;
  callerKey?: string;
  clientName?: string;
  /** The HTTP client's own token the asking client came with: a client-always grant is bound to it. */
  clientTokenId?: string;
  grantedBy: string;
}

export interface GrantStoreOptions {
  /** Where "until revoked" grants persist; in memory only when absent. */
  file?: string;
  now?: () => Date;
  logger?: Logger;
  onChange?: () => void;
}

export class GrantStore {
  private readonly grants = new Map<string, Grant>();
  private readonly options: GrantStoreOptions;
  private readonly now: () => Date;
  private readonly log: Logger;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private saving: Promise<void> = Promise.resolve();

  constructor(options: GrantStoreOptions = {}) {
    this.options = options;
    this.now = options.now ?? (() => new Date());
    this.log = options.logger ?? silentLogger;
    if (options.file) this.load(options.file);
  }

  private load(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new AirlockError('config', `cannot read ${file}: ${messageOf(error)}`);
    }
    let parsed: z.infer<typeof fileSchema>;
    try {
      parsed = fileSchema.parse(JSON.parse(text));
    } catch (error) {
      throw new AirlockError('config', `${file} is not a valid grants file: ${messageOf(error).split('\n')[0]}`, {
        hint: 'fix it, or delete it to forget every "until revoked" grant',
      });
    }
    for (const g of parsed.grants) if (persisted(g)) this.grants.set(g.id, withKind(g));
  }

  /** The grant that lets this call through without asking, if any (and notes its use: the listener hears of it). */
  use(key: GrantKey): Grant | undefined {
    const matching = [...this.grants.values()].filter((g) => g.profile === key.profile && g.operationId === key.operationId && grantCovers(g, key));
    const g = matching.sort((a, b) => NARROWEST_FIRST.indexOf(a.scope) - NARROWEST_FIRST.indexOf(b.scope))[0];
    if (!g) return undefined;
    g.lastUsedAt = this.now().toISOString();
    g.uses++;
    if (persisted(g)) this.scheduleSave();
    this.notify();
    return { ...g };
  }

  add(input: NewGrant): Grant {
    if (input.scope === 'session' && !input.callerKey) throw new AirlockError('usage', 'a session grant needs the session it is bound to');
    if (input.scope === 'client-always' && !input.clientName && !input.clientTokenId)
      throw new AirlockError('usage', '"this client, until revoked" needs the name the client declares, and this client declared none', {
        hint: 'allow it for this session instead',
      });
    const bound = (g: { scope: GrantScope; callerKey?: string | undefined; clientName?: string | undefined; clientTokenId?: string | undefined }) =>
      g.scope === 'session' ? g.callerKey : g.scope === 'client-always' ? (g.clientTokenId ? `token:${g.clientTokenId}` : `name:${g.clientName}`) : '';
    const existing = [...this.grants.values()].find(
      (g) => g.scope === input.scope && g.profile === input.profile && g.operationId === input.operationId && bound(g) === bound(input),
    );
    if (existing) return { ...existing };
    const grant: Grant = {
      id: `grt_${randomBytes(6).toString('hex')}`,
      scope: input.scope,
      profile: input.profile,
      operationId: input.operationId,
      callKind: input.callKind ?? 'api-call',
      ...(input.method !== undefined ? { method: input.method } : {}),
      ...(input.pathTemplate !== undefined ? { pathTemplate: input.pathTemplate } : {}),
      ...(input.scope === 'session' ? { callerKey: input.callerKey! } : {}),
      ...(input.clientName ? { clientName: input.clientName } : {}),
      ...(input.scope === 'client-always' && input.clientTokenId ? { clientTokenId: input.clientTokenId } : {}),
      grantedBy: input.grantedBy,
      createdAt: this.now().toISOString(),
      uses: 0,
    };
    this.grants.set(grant.id, grant);
    this.log.info(
      `grant ${grant.id}: ${GRANT_SCOPE_INFO[grant.scope].label}${grant.scope === 'client-always' ? ` (${grant.clientName})` : ''} ${grantLine(grant)} (${grant.operationId}) by ${grant.grantedBy}`,
    );
    this.changed(persisted(grant));
    return { ...grant };
  }

  list(): Grant[] {
    return [...this.grants.values()].map((g) => ({ ...g })).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  revoke(id: string, by: string): boolean {
    const g = this.grants.get(id);
    if (!g) return false;
    this.grants.delete(id);
    this.log.info(`grant ${id} revoked by ${by}`);
    this.changed(persisted(g));
    return true;
  }

  revokeAll(by: string): number {
    const n = this.grants.size;
    const anyPersisted = [...this.grants.values()].some(persisted);
    this.grants.clear();
    if (n > 0) {
      this.log.info(`${n} grants revoked by ${by}`);
      this.changed(anyPersisted);
    }
    return n;
  }

  /** Every grant of one profile (an API, or another MCP server as `mcp:<name>`) revoked: it was removed, or its tools changed. */
  revokeProfile(profile: string, by: string): number {
    const gone = [...this.grants.values()].filter((g) => g.profile === profile);
    for (const g of gone) this.grants.delete(g.id);
    if (gone.length > 0) {
      this.log.info(`${gone.length} grant${gone.length === 1 ? '' : 's'} of ${profile} revoked by ${by}`);
      this.changed(gone.some(persisted));
    }
    return gone.length;
  }

  /** A client's own token was revoked: the grants bound to it go with it. */
  revokeClientToken(tokenId: string, by: string): number {
    const gone = [...this.grants.values()].filter((g) => g.clientTokenId === tokenId);
    for (const g of gone) this.grants.delete(g.id);
    if (gone.length > 0) {
      this.log.info(`${gone.length} grant${gone.length === 1 ? '' : 's'} of a revoked client token revoked by ${by}`);
      this.changed(gone.some(persisted));
    }
    return gone.length;
  }

  /** A session ended: its grants go with it. */
  endSession(callerKey: string): void {
    let n = 0;
    for (const [id, g] of this.grants) {
      if (g.scope === 'session' && g.callerKey === callerKey) {
        this.grants.delete(id);
        n++;
      }
    }
    if (n > 0) this.changed(false);
  }

  /** Writes pending changes to the grants file (call before exit). */
  async flush(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
      this.saving = this.saving.then(() => this.save());
    }
    await this.saving;
  }

  private changed(save: boolean): void {
    if (save) this.scheduleSave(0);
    this.notify();
  }

  private notify(): void {
    try {
      this.options.onChange?.();
    } catch {
      // A listener must not break a decision.
    }
  }

  private scheduleSave(delayMs = 1000): void {
    if (!this.options.file) return;
    if (this.saveTimer) {
      if (delayMs > 0) return;
      clearTimeout(this.saveTimer);
    }
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.saving = this.saving.then(() => this.save());
    }, delayMs);
    this.saveTimer.unref?.();
  }

  private async save(): Promise<void> {
    const file = this.options.file;
    if (!file) return;
    const grants = [...this.grants.values()].filter(persisted);
    try {
      await writeFileAtomic(file, JSON.stringify({ version: 1, grants }, null, 2) + '\n');
    } catch (error) {
      this.log.error(`cannot save grants to ${file}: ${messageOf(error)}`);
    }
  }
}
