// The control API's handlers: every method of the contract, each group
// built from the few services it reads (see each create…Handlers). Secrets
// go in (keys.set) but never come out, and the dispatcher parses every
// output against the contract, so a field a handler adds by mistake is
// stripped.
import type { ControlHandlers } from '../control/dispatch.ts';
import { AirlockError } from '../util/errors.ts';
import { statusOf } from './companionViews.ts';
import type { Services } from './services.ts';
import { createEngineHandlers } from './engineHandlers.ts';
import { createProfileHandlers } from './profileHandlers.ts';
import { createKeyHandlers } from './keyHandlers.ts';
import { createClientHandlers } from './clientHandlers.ts';
import { createRuleHandlers } from './ruleHandlers.ts';
import { createSettingsHandlers } from './settingsHandlers.ts';
import { createApprovalHandlers } from './approvalHandlers.ts';
import { createAuditHandlers } from './auditHandlers.ts';
import { createLogHandlers } from './logHandlers.ts';
import { createApiHandlers } from './apiHandlers.ts';
import { createServerHandlers } from './serverHandlers.ts';

export type HostHandlerServices = Pick<Services, 'host' | 'logs'>;

/** What only the host provides: the web UI's login link, a new MCP token. */
export function createHostHandlers(c: HostHandlerServices): Pick<ControlHandlers, 'ui.loginLink' | 'tokens.rotateMcp'> {
  return {
    'ui.loginLink': () => {
      if (!c.host.loginLink)
        throw new AirlockError('unavailable', 'the web UI is not served by this companion', { hint: 'start it with `airlock serve --ui`' });
      return c.host.loginLink();
    },
    'tokens.rotateMcp': (_input, caller) => {
      if (!c.host.rotateMcpToken) throw new AirlockError('unavailable', 'this companion serves no MCP over HTTP (stdio has no token)');
      const rotated = c.host.rotateMcpToken();
      c.logs.logger.warn(`MCP token rotated by ${caller.by}`);
      return rotated;
    },
  };
}

export function createControlHandlers(s: Services): ControlHandlers {
  return {
    status: () => statusOf(s),
    'sessions.list': () => s.sessions.list(),
    ...createSettingsHandlers(s),
    ...createEngineHandlers(s),
    ...createProfileHandlers(s),
    ...createApiHandlers(s),
    ...createServerHandlers(s),
    ...createKeyHandlers(s),
    ...createClientHandlers(s),
    ...createRuleHandlers(s),
    ...createApprovalHandlers(s),
    ...createAuditHandlers(s),
    ...createLogHandlers(s),
    ...createHostHandlers(s),
  };
}
