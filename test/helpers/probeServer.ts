// The options of a server with one read-only tool, `probe`, whose description the test changes: for the tests of a
// tools/list answered from what was built once (the 2025 prepared reply, the 2026-07-28 kept answer).
import { z } from 'zod';
import type { McpServerOptions } from '../../main/core/mcp/createMcpServer.ts';
import { silentLogger } from '../../main/core/log/logger.ts';

/** `state.description` is what the tool says when described next; `state.built` counts each time it is described. */
export interface ProbeState {
  description: string;
  built: number;
  opening: boolean;
}

export function probeServerOptions(state: ProbeState): McpServerOptions {
  return {
    apis: () => [],
    ready: async () => [],
    opening: () => state.opening,
    logger: silentLogger,
    transport: 'stdio',
    onToolCall: () => undefined,
    tools: [
      (registry) => {
        const tool = registry.register(
          'probe',
          { title: 'Probe', description: state.description, inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
          async () => ({ result: { content: [{ type: 'text', text: 'ok' }] } }),
        );
        // Called whenever the server (re)builds its tools/list answer, and on every change.
        return () => {
          state.built++;
          tool.describe({ title: 'Probe', description: state.description });
        };
      },
    ],
  };
}
