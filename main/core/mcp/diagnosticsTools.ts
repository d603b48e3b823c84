// Read-only diagnostics for the model and the person debugging with it:
// server_log (Airlock's live log), web_log (the desktop/web UI's console,
// errors and uncaught exceptions), health (uptime, memory, runs, queue,
// clients, engine, egress, profile), get_config (the running
// configuration, secrets redacted), and for other MCP servers behind Airlock
// list_mcp_servers and toggle_mcp_server (which a person must approve). On
// by default; a setting turns them off.
import { z } from 'zod';
import { LOG_LEVELS } from '../../../contract/logs.ts';
import type { LogBuffer } from '../log/logBuffer.ts';
import type { AuditedTools, ToolContext } from './auditedTools.ts';

export interface DiagnosticsContext {
  logBuffer: LogBuffer;
  health(): Record<string, unknown>;
  config(): Record<string, unknown>;
  redact(text: string): string;
  /** Other MCP servers behind Airlock: listed, and turned on or off once a person approves. */
  servers?: {
    list(): { name: string; transport: string; enabled: boolean; state: string; toolCount?: number; reason?: string }[];
    /** Asks the person; resolves with what happened, in words. */
    toggle(name: string, enabled: boolean, ctx: ToolContext): Promise<{ text: string; isError?: boolean }>;
  };
}

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const logFilters = {
  level: z.enum(LOG_LEVELS).optional().describe('minimum level (default: info)'),
  grep: z.string().max(200).optional().describe('case-insensitive substring'),
  since: z.string().max(40).optional().describe('ISO time: only lines at or after it'),
  limit: z.number().int().min(1).max(500).optional().describe('how many lines (default 100)'),
};

/** The diagnostics tools' names (list_mcp_servers and toggle_mcp_server only where a person has other servers). */
export const DIAGNOSTICS_TOOLS: ReadonlySet<string> = new Set(['server_log', 'web_log', 'health', 'get_config', 'list_mcp_servers', 'toggle_mcp_server']);

export function registerDiagnostics(tools: AuditedTools, ctx: DiagnosticsContext): void {
  const logTool = (name: string, title: string, description: string, only: { source?: string; exceptSource?: string }) =>
    tools.register(name, { title, description, inputSchema: logFilters, annotations: { title, ...readOnly } }, async ({ level, grep, since, limit }) => {
      const entries = ctx.logBuffer
        .query({ level: level ?? 'info', ...(grep ? { grep } : {}), ...(since ? { since } : {}), ...(only.source ? { source: only.source } : {}) })
        .filter((e) => e.source !== only.exceptSource)
        .slice(-(limit ?? 100));
      const text = entries.map((e) => `${e.time} ${e.level.padEnd(5)} [${e.source}]${e.runId ? ` (run ${e.runId.slice(0, 8)})` : ''} ${e.message}`).join('\n');
      return { result: { content: [{ type: 'text', text: ctx.redact(text || '(no matching lines)') }] } };
    });
  logTool(
    'server_log',
    'Airlock log',
    "Recent lines of Airlock's own log (server events, refused requests, sandbox console output tagged with its run id). Filter by minimum level, substring and time; newest last.",
    { exceptSource: 'ui' },
  );
  logTool(
    'web_log',
    'Airlock UI log',
    "Recent console output, errors and uncaught exceptions of Airlock's desktop or web UI. Same filters as server_log; newest last.",
    { source: 'ui' },
  );
  tools.register(
    'health',
    {
      title: 'Airlock health',
      description: 'Uptime, memory, active runs, queue depth, connected clients, engine, egress mode and profile of this Airlock server.',
      inputSchema: {},
      annotations: { title: 'Airlock health', ...readOnly },
    },
    async () => ({ result: { content: [{ type: 'text', text: ctx.redact(JSON.stringify(ctx.health(), null, 2)) }] } }),
  );
  tools.register(
    'get_config',
    {
      title: 'Airlock configuration',
      description: 'The running configuration: profile, API, engine, egress, caps and settings (secrets redacted; only a fingerprint of the API key).',
      inputSchema: {},
      annotations: { title: 'Airlock configuration', ...readOnly },
    },
    async () => ({ result: { content: [{ type: 'text', text: ctx.redact(JSON.stringify(ctx.config(), null, 2)) }] } }),
  );
  const servers = ctx.servers;
  if (!servers) return;
  tools.register(
    'list_mcp_servers',
    {
      title: 'MCP servers behind Airlock',
      description:
        "The other MCP servers behind Airlock: each one's name, transport, whether it is enabled, its state (configured, starting, connected, failed, stopped) and its tool count. Scripts reach their tools as mcp.<server>.<tool>(args).",
      inputSchema: {},
      annotations: { title: 'MCP servers behind Airlock', ...readOnly },
    },
    async () => ({ result: { content: [{ type: 'text', text: ctx.redact(JSON.stringify(servers.list(), null, 2)) }] } }),
  );
  tools.register(
    'toggle_mcp_server',
    {
      title: 'Turn an MCP server on or off',
      description: 'Turns one of the MCP servers behind Airlock on or off. The person running Airlock is asked first; nothing changes without their yes.',
      inputSchema: {
        name: z.string().min(1).max(30).describe('the server, as list_mcp_servers names it'),
        enabled: z.boolean().describe('true: on; false: off'),
      },
      annotations: { title: 'Turn an MCP server on or off', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ name, enabled }, toolCtx) => {
      const { text, isError } = await servers.toggle(name, enabled, toolCtx);
      return {
        result: { content: [{ type: 'text', text: ctx.redact(text) }], ...(isError ? { isError: true } : {}) },
        ...(isError ? { outcome: 'denied' } : {}),
      };
    },
  );
}
