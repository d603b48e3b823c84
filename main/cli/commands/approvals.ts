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
  type QuestionAnswer,
  type QuestionField,
} from '../../../contract/approvals.ts';
import { AirlockError } from '../../core/util/errors.ts';

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
  const refused = Object.keys(p.scopesRefused ?? {});
  const offered = offeredScopes(r).filter((scope) => !refused.includes(scope));
  lines.push(
    `  scopes offered: ${offered.join(', ')}${withheld ? ` (${withheld})` : ''}${refused.length > 0 ? ` (not ${refused.join(', ')}: set by your organisation)` : ''}`,
  );
  if (r.kind === 'api-call') {
    for (const h of r.headers) lines.push(`  ${h.name}: ${h.value}`);
    if (Object.keys(r.query).length > 0) lines.push(`  query ${JSON.stringify(r.query)}`);
  }
  if (r.kind === 'server-question') {
    for (const f of r.fields) lines.push(`  field ${fieldLine(f)}`);
    lines.push(`  answer: airlock approvals approve ${p.id}${r.fields.map((f) => ` --answer ${f.name}=…`).join('')}; decline: airlock approvals deny ${p.id}`);
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

/** One field of a server's question: its name, kind, whether it must be answered, and the server's words for it. */
function fieldLine(f: QuestionField): string {
  const kind =
    f.type === 'list'
      ? `any of ${f.choices?.join(', ')}, comma-separated`
      : f.choices
        ? `one of ${f.choices.join(', ')}`
        : { string: f.format ? `text (${f.format})` : 'text', number: 'a number', integer: 'a whole number', boolean: 'true or false' }[f.type];
  const said = [f.title, f.description].filter(Boolean).join(': ');
  return printable(
    `${f.name} (${kind}${f.required ? ', required' : ''}${f.default !== undefined ? `, default ${String(f.default)}` : ''})${said ? ` ${said.slice(0, 200)}` : ''}`,
  );
}

/** `--answer field=value` flags as the question's fields take them (numbers and yes/no read as such); the defaults fill the rest. */
export function answerFromFlags(fields: readonly QuestionField[], flags: readonly string[]): QuestionAnswer {
  const answer: QuestionAnswer = {};
  for (const f of fields) if (f.default !== undefined) answer[f.name] = f.default;
  for (const flag of flags) {
    const at = flag.indexOf('=');
    if (at <= 0) throw new AirlockError('usage', `--answer ${JSON.stringify(flag)}: write it as field=value`);
    const name = flag.slice(0, at);
    const raw = flag.slice(at + 1);
    const field = fields.find((f) => f.name === name);
    if (!field)
      throw new AirlockError(
        'usage',
        `--answer ${name}=…: the question has no field "${name}" (its fields: ${fields.map((f) => f.name).join(', ') || 'none'})`,
      );
    if (field.type === 'boolean') {
      if (!/^(true|false|yes|no)$/i.test(raw)) throw new AirlockError('usage', `--answer ${name}=${raw}: "${name}" is true or false`);
      answer[name] = /^(true|yes)$/i.test(raw);
    } else if (field.type === 'list') {
      answer[name] = raw
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
    } else if (field.type === 'number' || field.type === 'integer') {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw new AirlockError('usage', `--answer ${name}=${raw}: "${name}" is a number`);
      answer[name] = n;
    } else answer[name] = raw;
  }
  return answer;
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
    case 'server-question':
      return `MCP server ${r.server} asks you a question${r.tool ? ` while its tool ${printable(r.tool)} runs` : ''}`;
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
  options: { scope?: ApproveScope; reason?: string; answers?: string[]; json?: boolean },
): Promise<void> {
  // A server's question is answered with its fields (read from the queue, so each value is taken as its field's kind).
  let answer: QuestionAnswer | undefined;
  if (decision === 'approve') {
    const pending = (await client.call('approvals.list', {})).find((p) => p.id === id);
    if (pending?.request.kind === 'server-question') answer = answerFromFlags(pending.request.fields, options.answers ?? []);
    else if (options.answers?.length)
      throw new AirlockError('usage', `--answer is for a server's question, and ${id} is not one (pending: airlock approvals list)`);
  }
  const result = await client.call('approvals.decide', {
    id,
    decision,
    ...(options.scope ? { scope: options.scope } : {}),
    ...(options.reason ? { reason: options.reason } : {}),
    ...(answer ? { answer } : {}),
  });
  if (options.json) process.stdout.write(JSON.stringify(result) + '\n');
  else if (!result.approved) process.stdout.write(`Denied ${id}: ${result.reason}\n`);
  else {
    const scope = result.scope;
    const grant = isGrantScope(scope) ? `: a grant for ${GRANT_SCOPE_INFO[scope].label}${result.grantId ? ` (${result.grantId})` : ''}` : '';
    process.stdout.write(result.answer ? `Answered ${id}: sent to the server.\n` : `Approved ${id} (${scope})${grant}.\n`);
  }
}
