// `airlock approvals list | approve ID | deny ID`: answer the approval queue
// of a running `airlock serve` (or the app) through the control API.
import { printable } from '../printable.ts';
import type { ControlClient } from '../../core/control/controlClient.ts';
import type { ControlOutput } from '../../../contract/control.ts';
import {
  GRANT_SCOPE_INFO,
  isGrantScope,
  offeredScopes,
  requestLine,
  requestPayload,
  untilRevokedWithheld,
  type ApproveScope,
} from '../../../contract/approvals.ts';

type Pending = ControlOutput<'approvals.list'>[number];

export function formatPending(p: Pending): string {
  const r = p.request;
  const client = `${r.caller.clientName ?? r.caller.key}${r.caller.clientVersion ? ` ${r.caller.clientVersion}` : ''}`;
  const lines = [
    `${p.id}  ${headline(r)}`,
    ...(r.kind === 'tool-call' && r.description ? [`  what the server says of it: ${printable(r.description.split('\n')[0]!.slice(0, 300))}`] : []),
    `  ${r.reason}: ${r.rule}`,
    `  client ${client} (${r.caller.key}), call ${r.callIndex} of its run, ${Math.max(0, Math.round(p.secondsLeft))} s left, script sha256 ${r.scriptSha256.slice(0, 12)}…`,
  ];
  if (p.clientStoppedWaitingAt)
    lines.push(
      `  ${client} stopped waiting at ${p.clientStoppedWaitingAt}: you can still decide; ${p.clientCanResume ? 'the result waits for the client to resume the run' : 'if you allow it, the call is sent, but the client will not get the result'}`,
    );
  const withheld = untilRevokedWithheld(r);
  lines.push(`  scopes offered: ${offeredScopes(r).join(', ')}${withheld ? ` (${withheld})` : ''}`);
  if (r.kind === 'api-call') {
    for (const h of r.headers) lines.push(`  ${h.name}: ${h.value}`);
    if (Object.keys(r.query).length > 0) lines.push(`  query ${JSON.stringify(r.query)}`);
  }
  const payload = requestPayload(r);
  if (payload) {
    const body = payload.split('\n');
    lines.push(...body.slice(0, 20).map((l) => `  | ${printable(l)}`));
    // Never a silent cut: what a yes would send may be longer than what is shown here.
    if (body.length > 20) lines.push(`  | … ${body.length - 20} more lines: airlock approvals list --json shows them all`);
  }
  return lines.join('\n');
}

/** The request's first line: the HTTP request, the tool and its server, or the switch. */
function headline(r: Pending['request']): string {
  switch (r.kind) {
    case 'api-call':
      return `${r.method} ${r.url}  (${r.operationId}, profile ${r.profile})`;
    case 'tool-call':
      return `${printable(r.call)}  (a tool of MCP server ${r.server}${r.direct ? `, called directly as ${printable(r.direct)}` : ''})`;
    case 'server-switch':
      return `${requestLine(r)}  (toggle_mcp_server, asked by a client)`;
  }
}

export async function approvalsList(client: ControlClient, options: { json?: boolean }): Promise<void> {
  const pending = await client.call('approvals.list', {});
  if (options.json) {
    process.stdout.write(JSON.stringify(pending, null, 2) + '\n');
    return;
  }
  if (pending.length === 0) {
    process.stdout.write('No approvals pending.\n');
    return;
  }
  process.stdout.write(
    pending.map(formatPending).join('\n\n') +
      '\n\nApprove with `airlock approvals approve <id> [--scope once|run|session|client-always|everyone-session|always]`, deny with `airlock approvals deny <id> [--reason …]`.\n',
  );
}

export async function approvalsDecide(
  client: ControlClient,
  id: string,
  decision: 'approve' | 'deny',
  options: { scope?: ApproveScope; reason?: string; json?: boolean },
): Promise<void> {
  const result = await client.call('approvals.decide', {
    id,
    decision,
    ...(options.scope ? { scope: options.scope } : {}),
    ...(options.reason ? { reason: options.reason } : {}),
  });
  if (options.json) process.stdout.write(JSON.stringify(result) + '\n');
  else if (!result.approved) process.stdout.write(`Denied ${id}: ${result.reason}\n`);
  else {
    const scope = result.scope;
    const grant = isGrantScope(scope) ? `: a grant for ${GRANT_SCOPE_INFO[scope].label}${result.grantId ? ` (${result.grantId})` : ''}` : '';
    process.stdout.write(`Approved ${id} (${scope})${grant}.\n`);
  }
}
