// The kinds of call (contract/calls.ts) as every reader sees them: records
// and grants of any age read as the kind they are (TOOL and TOGGLE in an
// older method), no HTTP method for what is not HTTP, and one line that says
// what a call was, used by the CLI, the Activity screen and the prompt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callKindOf, callLine, httpMethodOf, serverOfProfile, toolAddress } from '../../contract/calls.ts';
import { requestLine, requestPayload, requestTarget, type ApprovalRequest } from '../../contract/approvals.ts';

test('a record of any age is read as its kind: its own word, else what its method said', () => {
  assert.equal(callKindOf({ callKind: 'tool-call' }), 'tool-call');
  assert.equal(callKindOf({ method: 'TOOL' }), 'tool-call', 'written before the kinds');
  assert.equal(callKindOf({ method: 'toggle' }), 'server-switch');
  assert.equal(callKindOf({ method: 'POST' }), 'api-call');
  assert.equal(callKindOf({}), 'api-call');
  assert.equal(callKindOf({ callKind: 'nonsense', method: 'GET' }), 'api-call', 'an unknown word is not trusted');
  assert.equal(httpMethodOf({ method: 'TOOL' }), undefined, 'no method for a tool, even an old record that said TOOL');
  assert.equal(httpMethodOf({ callKind: 'api-call', method: 'DELETE' }), 'DELETE');
});

test('one line says what a call was', () => {
  assert.equal(callLine({ callKind: 'api-call', method: 'POST', url: 'https://api.test/events' }), 'POST https://api.test/events');
  assert.equal(callLine({ method: 'GET', pathTemplate: '/events/{id}' }), 'GET /events/{id}');
  assert.equal(callLine({ callKind: 'tool-call', operationId: 'write_file', server: 'fs' }), 'tool write_file of MCP server fs');
  assert.equal(
    callLine({ method: 'TOOL', operationId: 'read_file', profile: 'mcp:fs', url: 'mcp://fs/read_file' }),
    'tool read_file of MCP server fs',
    'an older record',
  );
  assert.equal(callLine({ callKind: 'server-switch', url: 'airlock://servers/fs' }), 'switch MCP server fs');
  assert.equal(toolAddress('fs', 'a/b'), 'mcp://fs/a%2Fb');
  assert.equal(serverOfProfile('mcp:fs'), 'fs');
  assert.equal(serverOfProfile('demo'), undefined);
});

test('a request is told by its kind: its target, its line and what it would send', () => {
  const base = {
    runId: 'r',
    caller: { key: 'k', transport: 'stdio' as const },
    profile: 'p',
    reason: 'mutation' as const,
    rule: 'r',
    operationId: 'events.create',
    call: 'api.events.create',
    requestHash: 'h',
    callIndex: 1,
    earlierCalls: [],
    scriptSha256: '',
    script: '',
  };
  const api: ApprovalRequest = {
    ...base,
    kind: 'api-call',
    method: 'POST',
    pathTemplate: '/events',
    url: 'https://x.test/events',
    query: {},
    headers: [],
    bodyPreview: '{"a":1}',
  };
  const tool: ApprovalRequest = {
    ...base,
    kind: 'tool-call',
    profile: 'mcp:fs',
    operationId: 'write_file',
    call: 'mcp.fs.write_file',
    server: 'fs',
    tool: 'write_file',
    address: 'mcp://fs/write_file',
    arguments: '{"path":"x"}',
  };
  const sw: ApprovalRequest = { ...base, kind: 'server-switch', profile: 'airlock', operationId: 'toggle_mcp_server', server: 'fs', enabled: true };
  assert.deepEqual(
    [api, tool, sw].map((r) => [requestTarget(r), requestLine(r, 'url'), requestPayload(r)]),
    [
      ['POST /events', 'POST https://x.test/events (events.create)', '{"a":1}'],
      ['mcp.fs.write_file', 'mcp.fs.write_file (a tool of MCP server fs)', '{"path":"x"}'],
      ['turn MCP server fs on', 'turn MCP server fs on', '{\n  "name": "fs",\n  "enabled": true\n}'],
    ],
  );
});
