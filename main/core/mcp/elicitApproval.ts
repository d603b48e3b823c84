// A person's yes or no asked through the client (MCP elicitation, 2025
// revision), when the connected client declared the capability: the form an
// approval is asked with, and its answer read back.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Elicit } from '../approvals/types.ts';

/** One object for every elicitation: the shared JSON-schema validator caches compiled schemas by identity. */
const APPROVAL_FORM = {
  type: 'object' as const,
  properties: {
    approve: { type: 'boolean' as const, title: 'Allow this call?', description: 'Yes lets this one API call through.' },
    reason: { type: 'string' as const, title: 'Reason (if you refuse)', description: 'Sent back to the code as the error.' },
  },
  required: ['approve'],
};

/**
 * Whether client capabilities declare form elicitation (what an approval is asked with): `elicitation: {}` is form
 * alone, as both revisions read it; `{ url: {} }` without `form` is URL elicitation only, and is not asked a form.
 */
export function declaresFormElicitation(capabilities: { elicitation?: unknown } | undefined): boolean {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | null | undefined;
  if (!elicitation || typeof elicitation !== 'object') return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** Yes/no through MCP elicitation, when the connected client declared form elicitation. */
export function elicitThrough(server: McpServer): Elicit | undefined {
  if (!declaresFormElicitation(server.server.getClientCapabilities())) return undefined;
  return async (message, signal) => {
    const result = await server.server.elicitInput(
      {
        message,
        requestedSchema: APPROVAL_FORM,
      },
      signal ? { signal } : undefined,
    );
    if (result.action !== 'accept') return result.action === 'decline' ? { approved: false, reason: 'declined by the person' } : undefined;
    const content = (result.content ?? {}) as { approve?: unknown; reason?: unknown };
    return { approved: content.approve === true, ...(typeof content.reason === 'string' && content.reason ? { reason: content.reason } : {}) };
  };
}
