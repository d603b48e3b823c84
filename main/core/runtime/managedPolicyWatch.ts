// The managed file, followed while the companion runs (issue 40 §1): when an
// admin's tool places a new policy, what it tightens applies at once — its
// fixed values of live settings take effect, an API it now refuses stops
// being served, a server it now refuses is stopped, a grant wider than it now
// allows is revoked — and a broken
// file switches execute off. Each is said in the log. What it loosens (a
// value it no longer fixes) applies at the next start. The file is polled
// (fs.watchFile: its stat, every second): it may not exist yet, nor its
// directory, and a tool may replace it rather than write it in place. On
// Windows the registry's value is polled too (every 5 s).
import { unwatchFile, watchFile } from 'node:fs';
import { APPROVE_SCOPES } from '../../../contract/approvals.ts';
import { apiRefusal, BY_ORGANISATION, managedSettings, readManagedPolicy, serverRefusal } from '../config/managedPolicy.ts';
import type { UpstreamServers } from '../upstream/upstreamServers.ts';
import type { GrantStore } from '../approvals/grantStore.ts';
import type { Logger } from '../log/logger.ts';
import type { PolicyRecorder } from './policyAudit.ts';
import type { LiveSettings } from './services.ts';
import type { ServedApis } from './servedApis.ts';

export interface ManagedPolicyWatchDeps {
  file: string;
  /** Windows: the policy's value in the registry, read when the file is not there (windowsPolicy.ts); polled as the file is. */
  registry?: () => string | undefined;
  settings: LiveSettings;
  apis: Pick<ServedApis, 'list' | 'disable'>;
  grants: Pick<GrantStore, 'list' | 'revoke'>;
  /** Other MCP servers: one running that the policy now refuses is stopped. */
  servers?: Pick<UpstreamServers, 'stopRefused'>;
  logger: Logger;
  /** Where what a new policy disabled, stopped or revoked is audited. */
  policyEvents?: Pick<PolicyRecorder, 'record'>;
  /** How often the file's stat is read (default 1 s). */
  intervalMs?: number;
}

/** Applies the managed file as it is now; returns what changed, in words (for the log and tests). */
export function applyManagedPolicy(d: Omit<ManagedPolicyWatchDeps, 'intervalMs'>): string[] {
  const read = readManagedPolicy(d.file, d.registry);
  const said: string[] = [];
  const { applied, atRestart } = d.settings.applyManaged(managedSettings(read), read);
  if (read.state === 'broken') said.push(`the managed policy ${d.file} is broken (${read.error}): execute is switched off until it is fixed`);
  if (applied.length > 0) said.push(`fixed now: ${applied.join(', ')}`);
  if (atRestart.length > 0) said.push(`fixed at the next start: ${atRestart.join(', ')}`);
  if (read.state !== 'ok') return said;
  const { policy } = read;
  for (const api of d.apis.list()) {
    const refused = apiRefusal(policy, {
      profile: api.name,
      ...((api.opened?.api.baseUrl ?? api.profile.baseUrl) ? { baseUrl: api.opened?.api.baseUrl ?? api.profile.baseUrl } : {}),
    });
    if (refused && d.apis.disable(api.name)) {
      said.push(`API ${api.name} no longer served: ${refused}`);
      d.policyEvents?.record({ action: `serve API ${api.name}`, by: 'the managed policy', why: refused, outcome: 'disabled' });
    }
  }
  for (const why of d.servers?.stopRefused((name, entry) => serverRefusal(policy, { name, entry })) ?? []) {
    said.push(`stopped: ${why}`);
    d.policyEvents?.record({ action: 'MCP server running', by: 'the managed policy', why, outcome: 'stopped' });
  }
  const max = policy.approvals.maxGrantScope;
  if (max) {
    for (const grant of d.grants.list()) {
      if (APPROVE_SCOPES.indexOf(grant.scope) <= APPROVE_SCOPES.indexOf(max)) continue;
      if (!d.grants.revoke(grant.id, `the managed policy (${BY_ORGANISATION})`)) continue;
      const what = `grant ${grant.id} (${grant.profile} ${grant.operationId}, ${grant.scope})`;
      said.push(`${what} revoked: wider than "${max}"`);
      d.policyEvents?.record({ action: what, by: 'the managed policy', why: `wider than "${max}" (${BY_ORGANISATION}: ${d.file})`, outcome: 'revoked' });
    }
  }
  return said;
}

/** Follows the managed file; returns how to stop. */
export function watchManagedPolicy(d: ManagedPolicyWatchDeps): () => void {
  const log = d.logger.child('policy');
  const changed = () => {
    try {
      const said = applyManagedPolicy(d);
      const broken = d.settings.managed?.state === 'broken';
      log[broken ? 'error' : 'warn'](`the managed policy ${d.file} changed (${BY_ORGANISATION})${said.length > 0 ? `: ${said.join('; ')}` : ''}`);
    } catch (error) {
      log.error(`the managed policy ${d.file} could not be applied: ${(error as Error).message}`);
    }
  };
  const interval = d.intervalMs ?? 1_000;
  watchFile(d.file, { interval, persistent: false }, (now, before) => {
    if (now.mtimeMs === before.mtimeMs && now.size === before.size && now.ino === before.ino) return;
    changed();
  });
  // The registry has no stat to follow: its value is read again every few seconds, and applied when it changed.
  let value = d.registry?.();
  const poll = d.registry
    ? setInterval(() => {
        const now = d.registry!();
        if (now === value) return;
        value = now;
        changed();
      }, interval * 5).unref()
    : undefined;
  return () => {
    unwatchFile(d.file);
    if (poll) clearInterval(poll);
  };
}
