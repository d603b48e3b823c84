// The APIs screen's key methods. Keys go in but never come out: they are
// listed by fingerprint only, and the dispatcher strips any field the
// contract does not name.
import type { ControlHandlers } from '../control/dispatch.ts';
import { fingerprint } from '../secrets/fingerprint.ts';
import { PROFILE_NAME } from '../profiles/profile.ts';
import { AirlockError } from '../util/errors.ts';
import type { Services } from './services.ts';

export type KeyHandlerServices = Pick<Services, 'keys' | 'logs'>;

/**
 * These methods are for API keys: an account that is not a profile name (an MCP server's secret,
 * `mcp-server:<name>:<VAR>`, kept in the same store) is refused, so a control-API caller can neither set nor
 * remove a server's secret through them.
 */
function apiKeyAccount(profile: string): void {
  if (!PROFILE_NAME.test(profile))
    throw new AirlockError('usage', `'${profile.slice(0, 60)}' is not a profile name (lowercase letters, digits, - and _, at most 40)`);
}

export function createKeyHandlers(c: KeyHandlerServices): Pick<ControlHandlers, 'keys.list' | 'keys.set' | 'keys.remove'> {
  const log = c.logs.logger;
  return {
    'keys.list': async () => {
      // The store also keeps MCP servers' secrets (mcp-server:<name>:<VAR>): only profiles' keys are listed here.
      const names = (await c.keys.store.list()).filter((n) => PROFILE_NAME.test(n));
      const out: { profile: string; fingerprint: string; source: 'keychain' | 'file' }[] = [];
      for (const profile of names) {
        const secret = await c.keys.store.get(profile);
        if (secret) out.push({ profile, fingerprint: fingerprint(secret), source: c.keys.store.kind === 'file' ? 'file' : 'keychain' });
      }
      return out;
    },

    'keys.set': async ({ profile, secret }, caller) => {
      apiKeyAccount(profile);
      await c.keys.store.set(profile, secret);
      c.keys.invalidate(profile);
      log.info(`API key for profile ${profile} set (${fingerprint(secret)}) by ${caller.by}`);
      return { fingerprint: fingerprint(secret) };
    },

    'keys.remove': async ({ profile }, caller) => {
      apiKeyAccount(profile);
      const removed = await c.keys.store.delete(profile);
      c.keys.invalidate(profile);
      if (removed) log.info(`API key for profile ${profile} removed by ${caller.by}`);
      return { removed };
    },
  };
}
