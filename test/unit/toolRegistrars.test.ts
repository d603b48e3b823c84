// A server built for one tool (a 2026-07-28 HTTP request's, which calls one tool) registers only the registrars that
// provide it: each registrar's `provides` must name exactly the tools it registers, or that tool would be missing
// from the server that answers a call of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditedTools } from '../../main/core/mcp/auditedTools.ts';
import { DIAGNOSTICS_TOOLS, registerDiagnostics } from '../../main/core/mcp/diagnosticsTools.ts';
import { LogBuffer } from '../../main/core/log/logBuffer.ts';

/** A registry that only records the names registered. */
function recording(): { tools: AuditedTools; names: string[] } {
  const names: string[] = [];
  const handle = { describe: () => undefined, remove: () => undefined };
  const tools: AuditedTools = {
    taskTools: new Map(),
    register: (name) => (names.push(name), handle),
    registerLoose: (name) => (names.push(name), handle),
  };
  return { tools, names };
}

test('the diagnostics registrar registers exactly the names DIAGNOSTICS_TOOLS gives, servers included', () => {
  const { tools, names } = recording();
  registerDiagnostics(tools, {
    logBuffer: new LogBuffer({ capacity: 10 }),
    health: () => ({}),
    config: () => ({}),
    redact: (t) => t,
    servers: { list: () => [], toggle: async () => ({ text: '' }) },
  });
  assert.deepEqual([...names].sort(), [...DIAGNOSTICS_TOOLS].sort());
});
