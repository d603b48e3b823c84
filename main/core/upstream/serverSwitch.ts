// list_mcp_servers and toggle_mcp_server, the diagnostics tools for other
// MCP servers: their states, and turning one on or off, which waits for a
// person's yes (a client never switches a server by itself).
import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import type { ApprovalHook } from '../approvals/types.ts';
import type { DiagnosticsContext } from '../mcp/diagnosticsTools.ts';
import type { ServerStore } from './serverStore.ts';
import type { UpstreamServers } from './upstreamServers.ts';

/** list_mcp_servers and toggle_mcp_server: the servers' states, and a switch that waits for a person's yes. */
export function serverSwitch(s: {
  upstream: UpstreamServers;
  entries: ServerStore;
  approvals: ApprovalHook;
  /** The screens hear that the servers changed. */
  changed(): void;
  logger: Logger;
}): NonNullable<DiagnosticsContext['servers']> {
  const store = s.entries;
  return {
    list: () =>
      s.upstream.status().map((v) => ({
        name: v.name,
        transport: v.transport,
        enabled: v.enabled,
        state: v.state,
        ...(v.toolCount !== undefined ? { toolCount: v.toolCount } : {}),
        ...(v.reason ? { reason: v.reason } : {}),
      })),
    async toggle(name, enabled, ctx) {
      const entry = store.get(name);
      if (!entry) return { text: `No MCP server is named '${name}' (list_mcp_servers lists them).`, isError: true };
      if (entry.enabled === enabled) return { text: `MCP server ${name} is ${enabled ? 'on' : 'off'} already.` };
      const decision = await s.approvals.request(
        {
          kind: 'server-switch',
          runId: randomUUID(),
          caller: ctx.caller,
          profile: 'airlock',
          reason: 'mutation',
          rule: 'a client may turn an MCP server on or off only with your yes',
          operationId: 'toggle_mcp_server',
          call: 'toggle_mcp_server',
          summary: `Turn the MCP server ${name} ${enabled ? 'on' : 'off'}`,
          server: name,
          enabled,
          requestHash: createHash('sha256').update(`server-switch\n${name}\n${enabled}`).digest('hex'),
          callIndex: 1,
          earlierCalls: [],
          scriptSha256: '',
          script: `toggle_mcp_server(${JSON.stringify({ name, enabled })})`,
        },
        { signal: ctx.signal },
      );
      if (!decision.approved) return { text: `Not changed: ${decision.reason}`, isError: true };
      await store.setEnabled(name, enabled);
      s.upstream.sync();
      s.logger.info(`MCP server ${name} turned ${enabled ? 'on' : 'off'} by a client (toggle_mcp_server), approved by ${decision.by}`);
      s.changed();
      return { text: `MCP server ${name} is ${enabled ? 'on' : 'off'} (approved by ${decision.by}).` };
    },
  };
}
