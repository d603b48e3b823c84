// Rotating the MCP token: the old token is refused at once, sessions opened
// with it end, the new one (in <data dir>/token, 0600) works; the control
// token is untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '../helpers/processes.ts';
import { httpClient, execute } from '../helpers/mcpClients.ts';
import { controlClient } from '../helpers/control.ts';
import { tempDir } from '../helpers/paths.ts';

test('a rotated MCP token refuses the old one at once and ends its sessions; the new one works', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  const server = await serve(dir);
  t.after(() => server.stop());
  const old = server.token;
  const before = await httpClient(server.mcpUrl, old);
  assert.equal((await execute(before, 'return 1')).text, '1');
  const controlToken = readFileSync(join(dir, 'control-token'), 'utf8');

  const r = await controlClient(dir, server.url).call('tokens.rotateMcp', {});
  assert.equal(r.endedSessions, 1);
  const fresh = readFileSync(join(dir, 'token'), 'utf8').trim();
  assert.match(fresh, /^[0-9a-f]{64}$/);
  assert.notEqual(fresh, old);
  if (process.platform !== 'win32') assert.equal(statSync(join(dir, 'token')).mode & 0o777, 0o600);
  assert.equal(readFileSync(join(dir, 'control-token'), 'utf8'), controlToken, 'the control token is another power, untouched');

  const refused = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${old}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }),
  });
  assert.equal(refused.status, 401);
  await assert.rejects(execute(before, 'return 2'));
  await before.close().catch(() => undefined);

  const after = await httpClient(server.mcpUrl, fresh);
  assert.equal((await execute(after, 'return 3')).text, '3');
  await after.close();
});
