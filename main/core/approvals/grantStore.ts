// Grants: what an "Allow for this session" or "Always allow this operation"
// leaves behind. A session grant is bound to the caller key — the HTTP
// session the server issued, or the stdio process — never to the client's
// self-declared name, so another client cannot borrow it; it ends with the
// session. An "always" grant is per profile and operation, for every client,
// kept in <data dir>/grants.json until revoked. Every grant records who gave
// it, when, when it was last used and how often.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { grantSchema, type Grant } from '../../../contract/approvals.ts';
import { writeFileAtomic } from '../util/atomicWrite.ts';
import { AirlockError } from '../errors.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';

const fileSchema = z.object({ version: z.literal(1), grants: z.array(grantSchema) });

export interface GrantKey {
  profile: string;
  operationId: string;
  callerKey: string;
}

export interface NewGrant {
  scope: Grant['scope'];
  profile: string;
  operationId: string;
  method: string;
  pathTemplate: string;
  callerKey?: string;
  clientName?: string;
  grantedBy: string;
}

export interface GrantStoreOptions {
  /** Where "always" grants persist; in memory only when absent. */
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
      throw new AirlockError('config', `cannot read ${file}: ${(error as Error).message}`);
    }
    let parsed: z.infer<typeof fileSchema>;
    try {
      parsed = fileSchema.parse(JSON.parse(text));
    } catch (error) {
      throw new AirlockError('config', `${file} is not a valid grants file: ${(error as Error).message.split('\n')[0]}`, {
        hint: 'fix it, or delete it to forget every "always" grant',
      });
    }
    for (const g of parsed.grants) if (g.scope === 'always') this.grants.set(g.id, g);
  }

  /** The grant that lets this call through without asking, if any (and notes its use). */
  use(key: GrantKey): Grant | undefined {
    for (const g of this.grants.values()) {
      if (g.profile !== key.profile || g.operationId !== key.operationId) continue;
      if (g.scope === 'session' && g.callerKey !== key.callerKey) continue;
      g.lastUsedAt = this.now().toISOString();
      g.uses++;
      if (g.scope === 'always') this.scheduleSave();
      return { ...g };
    }
    return undefined;
  }

  add(input: NewGrant): Grant {
    if (input.scope === 'session' && !input.callerKey) throw new AirlockError('usage', 'a session grant needs the session it is bound to');
    const existing = [...this.grants.values()].find(
      (g) => g.scope === input.scope && g.profile === input.profile && g.operationId === input.operationId && g.callerKey === input.callerKey,
    );
    if (existing) return { ...existing };
    const grant: Grant = {
      id: `grt_${randomBytes(6).toString('hex')}`,
      scope: input.scope,
      profile: input.profile,
      operationId: input.operationId,
      method: input.method,
      pathTemplate: input.pathTemplate,
      ...(input.scope === 'session' ? { callerKey: input.callerKey! } : {}),
      ...(input.clientName ? { clientName: input.clientName } : {}),
      grantedBy: input.grantedBy,
      createdAt: this.now().toISOString(),
      uses: 0,
    };
    this.grants.set(grant.id, grant);
    this.log.info(`grant ${grant.id}: ${grant.scope} ${grant.method} ${grant.pathTemplate} (${grant.operationId}) by ${grant.grantedBy}`);
    this.changed(grant.scope === 'always');
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
    this.changed(g.scope === 'always');
    return true;
  }

  revokeAll(by: string): number {
    const n = this.grants.size;
    const persisted = [...this.grants.values()].some((g) => g.scope === 'always');
    this.grants.clear();
    if (n > 0) {
      this.log.info(`${n} grants revoked by ${by}`);
      this.changed(persisted);
    }
    return n;
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

  private changed(persisted: boolean): void {
    if (persisted) this.scheduleSave(0);
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
    const grants = [...this.grants.values()].filter((g) => g.scope === 'always');
    try {
      await writeFileAtomic(file, JSON.stringify({ version: 1, grants }, null, 2) + '\n');
    } catch (error) {
      this.log.error(`cannot save grants to ${file}: ${(error as Error).message}`);
    }
  }
}
