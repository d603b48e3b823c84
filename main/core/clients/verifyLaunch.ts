// After a registration: a real MCP handshake with exactly the command that
// was written (initialize, then tools/list), so the person sees ✔ with the
// tool names or ✘ with the reason before opening the client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { LaunchCommand } from './clientCatalog.ts';
import { messageOf } from '../../../contract/values.ts';

export type Handshake = { ok: true; tools: string[]; ms: number } | { ok: false; reason: string };

export async function verifyLaunch(launch: LaunchCommand, timeoutMs = 30_000): Promise<Handshake> {
  const started = performance.now();
  let stderr = '';
  const transport = new StdioClientTransport({ command: launch.command, args: launch.args, stderr: 'pipe' });
  transport.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString('utf8');
  });
  const client = new Client({ name: 'airlock-clients-verify', version: '1' });
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    await Promise.race([client.connect(transport), deadline]);
    const { tools } = await Promise.race([client.listTools(), deadline]);
    return { ok: true, tools: tools.map((t) => t.name), ms: Math.round(performance.now() - started) };
  } catch (error) {
    const last = stderr.trim().split('\n').at(-1);
    return { ok: false, reason: `${messageOf(error)}${last ? ` (the server said: ${last})` : ''}` };
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => undefined);
  }
}
