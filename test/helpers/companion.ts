// A running `airlock serve` in a temp data dir with an MCP client connected
// and its control API at hand, all closed when the test ends.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { serve, type Served } from './processes.ts';
import { httpClient } from './mcpClients.ts';
import { controlClient } from './control.ts';
import { tempDir } from './paths.ts';
import type { ControlClient } from '../../main/core/control/controlClient.ts';

export interface CompanionFixture {
  dir: string;
  server: Served;
  client: Client;
  control: ControlClient;
}

export async function companionFixture(t: { after(fn: () => unknown): void }, args: string[] = []): Promise<CompanionFixture> {
  const { dir, cleanup } = tempDir();
  const server = await serve(dir, args).catch((error: unknown) => {
    cleanup();
    throw error;
  });
  const client = await httpClient(server.mcpUrl, server.token);
  t.after(async () => {
    await client.close().catch(() => undefined);
    await server.stop();
    cleanup();
  });
  return { dir, server, client, control: controlClient(dir, server.url) };
}
