// Read-only diagnostics for the model and the person debugging with it:
// server_log (the live log ring), health (uptime, memory, runs, queue,
// clients, engine, egress, profile) and get_config (the running
// configuration, secrets redacted). On by default; a setting turns them off.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LOG_LEVELS, type LogBuffer } from '../log/logBuffer.ts';

export interface DiagnosticsContext {
  logBuffer: LogBuffer;
  health(): Record<string, unknown>;
  config(): Record<string, unknown>;
  redact(text: string): string;
}

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export function registerDiagnostics(server: McpServer, ctx: DiagnosticsContext): void {
  server.registerTool(
    'server_log',
    {
      title: 'Airlock log',
      description:
        "Recent lines of Airlock's own log (server events, refused requests, sandbox console output tagged with its run id). Filter by minimum level, substring and time; newest last.",
      inputSchema: {
        level: z.enum(LOG_LEVELS).optional().describe('minimum level (default: info)'),
        grep: z.string().max(200).optional().describe('case-insensitive substring'),
        since: z.string().optional().describe('ISO time: only lines at or after it'),
        limit: z.number().int().min(1).max(500).optional().describe('how many lines (default 100)'),
      },
      annotations: { title: 'Airlock log', ...readOnly },
    },
    async ({ level, grep, since, limit }) => {
      const entries = ctx.logBuffer.query({ level: level ?? 'info', ...(grep ? { grep } : {}), ...(since ? { since } : {}), limit: limit ?? 100 });
      const text = entries.map((e) => `${e.time} ${e.level.padEnd(5)} [${e.source}]${e.runId ? ` (run ${e.runId.slice(0, 8)})` : ''} ${e.message}`).join('\n');
      return { content: [{ type: 'text', text: ctx.redact(text || '(no matching lines)') }] };
    },
  );
  server.registerTool(
    'health',
    {
      title: 'Airlock health',
      description: 'Uptime, memory, active runs, queue depth, connected clients, engine, egress mode and profile of this Airlock server.',
      inputSchema: {},
      annotations: { title: 'Airlock health', ...readOnly },
    },
    async () => ({ content: [{ type: 'text', text: ctx.redact(JSON.stringify(ctx.health(), null, 2)) }] }),
  );
  server.registerTool(
    'get_config',
    {
      title: 'Airlock configuration',
      description: 'The running configuration: profile, API, engine, egress, caps and settings (secrets redacted; only a fingerprint of the API key).',
      inputSchema: {},
      annotations: { title: 'Airlock configuration', ...readOnly },
    },
    async () => ({ content: [{ type: 'text', text: ctx.redact(JSON.stringify(ctx.config(), null, 2)) }] }),
  );
}
