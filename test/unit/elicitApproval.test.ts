// An approval asked through the client is a form: it is asked only of a client
// that declared form elicitation, whichever revision it speaks (`elicitation:
// {}` is form alone; URL elicitation alone is not asked a form).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { declaresFormElicitation, elicitThrough } from '../../main/core/mcp/elicitApproval.ts';

test('form elicitation is what the client declared: {} or form, not URL alone, not a value of the wrong shape', () => {
  assert.equal(declaresFormElicitation({ elicitation: {} }), true);
  assert.equal(declaresFormElicitation({ elicitation: { form: {} } }), true);
  assert.equal(declaresFormElicitation({ elicitation: { form: {}, url: {} } }), true);
  assert.equal(declaresFormElicitation({ elicitation: { url: {} } }), false);
  assert.equal(declaresFormElicitation({ elicitation: null }), false);
  assert.equal(declaresFormElicitation({}), false);
  assert.equal(declaresFormElicitation(undefined), false);
});

test('a 2025 session asks through the client only when it declared form elicitation', { timeout: 10_000 }, async (t) => {
  for (const [elicitation, asks] of [
    [{}, true],
    [{ url: {} }, false],
  ] as const) {
    const server = new McpServer({ name: 's', version: '1' });
    const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation } });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    t.after(() => Promise.all([client.close(), server.close()]));
    assert.equal(elicitThrough(server) !== undefined, asks, JSON.stringify(elicitation));
  }
});
