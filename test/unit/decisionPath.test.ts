// The one decision path every call takes (gate/decisionPath.ts), asked of a
// source that writes down each step it is asked for: the steps come in one
// order — scope, rate limit, policy, evidence, approval, send — and the
// first that stops a call is the last asked, its refusal recorded through
// the source. The kill switch applies at both ends; a yes is checked again
// before anything leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { passGate, stop, type GateSource, type PathOptions, type Verdict } from '../../main/core/gate/decisionPath.ts';
import type { Refusal } from '../../main/core/gate/callRecords.ts';
import type { RunContext } from '../../main/core/gate/runContext.ts';
import type { ApprovalDecision, ApprovalHook, ApprovalRequest } from '../../main/core/approvals/types.ts';

const AT = '2026-12-02T00:00:00.000Z';
const YES: ApprovalDecision = { approved: true, by: 'alice', scope: 'once', at: AT, id: 'apr_1' };
const NO: ApprovalDecision = { approved: false, by: 'alice', reason: 'not today', at: AT, code: 'denied', id: 'apr_1' };

function run(overrides: Partial<RunContext> = {}): RunContext {
  return {
    runId: 'run-1',
    caller: { key: 'caller-1', transport: 'stdio' },
    scriptSha256: '',
    script: '',
    control: { whilePaused: (wait) => wait() },
    calls: [],
    ...overrides,
  };
}

/** A source that records the steps it is asked for, in order, answering each from `answers`. */
function source(
  steps: string[],
  answers: { scope?: Refusal; verdict?: Verdict; afterApproval?: Refusal; lastCheck?: Refusal } = {},
): GateSource<string> & { refused: Refusal[] } {
  const refused: Refusal[] = [];
  return {
    what: 'POST /things (things.create)',
    deniedCode: 'airlock_mutation_denied',
    refused,
    scope: () => (steps.push('scope'), answers.scope),
    policy: () => (steps.push('policy'), answers.verdict ?? { ask: true }),
    approvalRequest: async () => (steps.push('evidence'), { kind: 'api-call' } as ApprovalRequest),
    afterApproval: () => (steps.push('after-approval'), answers.afterApproval),
    lastCheck: () => (steps.push('last-check'), answers.lastCheck),
    send: async (passed) => (steps.push(`send:${passed.decision}`), 'sent'),
    refuse: async (refusal) => (steps.push(`record:${refusal.decision}`), refused.push(refusal), refusal.result),
  };
}

function path(steps: string[], options: { answer?: ApprovalDecision; rate?: boolean; kill?: () => boolean } = {}): PathOptions {
  const approvals: ApprovalHook = { request: async () => (steps.push('approval'), options.answer ?? YES) };
  return {
    approvals,
    rateLimit: () => (steps.push('rate'), options.rate ?? true),
    ...(options.kill ? { killSwitch: options.kill } : {}),
  };
}

const codeOf = (r: Refusal | undefined) => (r?.result.error as { code?: string } | undefined)?.code;

test('a call a person allows goes scope → rate limit → policy → evidence → approval → checks → send, in that order', async () => {
  const steps: string[] = [];
  const outcome = await passGate(path(steps), source(steps), run());
  assert.deepEqual(outcome, { sent: 'sent' });
  assert.deepEqual(steps, ['scope', 'rate', 'policy', 'evidence', 'approval', 'after-approval', 'last-check', 'send:approved']);
});

test('a read or an allowed call asks no one and reads no evidence', async () => {
  for (const send of ['read', 'allowed'] as const) {
    const steps: string[] = [];
    await passGate(path(steps), source(steps, { verdict: { send } }), run());
    assert.deepEqual(steps, ['scope', 'rate', 'policy', 'last-check', `send:${send}`]);
  }
});

test("the organisation's floor: every mutation asks (an allowed call is put to a person, a read is not), or every call does; the person is told why", async () => {
  const asked: ApprovalRequest[] = [];
  const floorPath = (steps: string[], floor: 'mutations' | 'every-call'): PathOptions => ({
    approvals: { request: async (request) => (steps.push('approval'), asked.push(request), YES) },
    askFloor: () => floor,
  });
  const withRule = (steps: string[], verdict: Verdict) => ({
    ...source(steps, { verdict }),
    approvalRequest: async () => (steps.push('evidence'), { kind: 'api-call', rule: 'rule allow for things.create' } as ApprovalRequest),
  });
  const cases: ['mutations' | 'every-call', 'read' | 'allowed', string[]][] = [
    ['mutations', 'allowed', ['scope', 'policy', 'evidence', 'approval', 'after-approval', 'last-check', 'send:approved']],
    ['mutations', 'read', ['scope', 'policy', 'last-check', 'send:read']],
    ['every-call', 'read', ['scope', 'policy', 'evidence', 'approval', 'after-approval', 'last-check', 'send:approved']],
    ['every-call', 'allowed', ['scope', 'policy', 'evidence', 'approval', 'after-approval', 'last-check', 'send:approved']],
  ];
  for (const [floor, send, expected] of cases) {
    const steps: string[] = [];
    await passGate(floorPath(steps, floor), withRule(steps, { send }), run());
    assert.deepEqual(steps, expected, `${floor} / ${send}`);
  }
  assert.deepEqual(
    asked.map((r) => ('rule' in r ? r.rule : '')),
    [
      'every mutation asks a person (set by your organisation); rule allow for things.create',
      'every call asks a person (set by your organisation); rule allow for things.create',
      'every call asks a person (set by your organisation); rule allow for things.create',
    ],
  );
});

test('the first step that stops a call is the last asked, and its refusal is recorded through the source', async () => {
  const cases: { name: string; answers?: Parameters<typeof source>[1]; options?: Parameters<typeof path>[1]; steps: string[]; code: string }[] = [
    {
      name: 'out of scope',
      answers: { scope: stop('airlock_unknown_operation', 'no such operation', 'refused') },
      steps: ['scope', 'record:refused'],
      code: 'airlock_unknown_operation',
    },
    { name: 'over the rate', options: { rate: false }, steps: ['scope', 'rate', 'record:refused'], code: 'airlock_rate_limited' },
    {
      name: 'denied by policy',
      answers: { verdict: { stop: stop('airlock_mutation_denied', 'refused by policy', 'denied') } },
      steps: ['scope', 'rate', 'policy', 'record:denied'],
      code: 'airlock_mutation_denied',
    },
    {
      name: 'a person says no',
      options: { answer: NO },
      steps: ['scope', 'rate', 'policy', 'evidence', 'approval', 'record:denied'],
      code: 'airlock_mutation_denied',
    },
    {
      name: 'changed after the yes',
      answers: { afterApproval: stop('airlock_approval_mismatch', 'changed', 'refused') },
      steps: ['scope', 'rate', 'policy', 'evidence', 'approval', 'after-approval', 'record:refused'],
      code: 'airlock_approval_mismatch',
    },
    {
      name: "the source's last check",
      answers: { lastCheck: stop('airlock_credential_format', 'bad key', 'refused', 401) },
      steps: ['scope', 'rate', 'policy', 'evidence', 'approval', 'after-approval', 'last-check', 'record:refused'],
      code: 'airlock_credential_format',
    },
  ];
  for (const c of cases) {
    const steps: string[] = [];
    const s = source(steps, c.answers);
    const outcome = await passGate(path(steps, c.options), s, run());
    assert.ok('refused' in outcome, c.name);
    assert.deepEqual(steps, c.steps, c.name);
    assert.equal(s.refused.length, 1, `${c.name}: one record`);
    assert.equal(codeOf(s.refused[0]), c.code, c.name);
  }
});

test("a person's answer is kept on the record of a call it did not let out", async () => {
  const denied: string[] = [];
  const no = source(denied);
  await passGate(path(denied, { answer: NO }), no, run());
  assert.deepEqual(no.refused[0]!.approval, NO);
  assert.match((no.refused[0]!.result.error as { message: string }).message, /POST \/things \(things\.create\) was not approved: not today/);
  const changed: string[] = [];
  const late = source(changed, { afterApproval: stop('airlock_approval_mismatch', 'changed', 'refused') });
  await passGate(path(changed), late, run());
  assert.deepEqual(late.refused[0]!.approval, YES, 'the yes that was given, on the refusal');
});

test('the kill switch stops a call before its scope, and one turned on while a person decided stops it before it leaves', async () => {
  const first: string[] = [];
  const off = source(first);
  await passGate(path(first, { kill: () => true }), off, run());
  assert.deepEqual(first, ['record:refused']);
  assert.equal(codeOf(off.refused[0]), 'airlock_kill_switch');
  const steps: string[] = [];
  let on = false;
  const approvals: ApprovalHook = { request: async () => (steps.push('approval'), (on = true), YES) };
  const during = source(steps);
  await passGate({ approvals, killSwitch: () => on }, during, run());
  assert.deepEqual(steps, ['scope', 'policy', 'evidence', 'approval', 'after-approval', 'record:refused']);
  assert.equal(codeOf(during.refused[0]), 'airlock_kill_switch');
  assert.deepEqual(during.refused[0]!.approval, YES);
});

test('no approver attached: refused before any evidence is read; a run ended while waiting sends nothing', async () => {
  const steps: string[] = [];
  const s = source(steps);
  await passGate({}, s, run());
  assert.deepEqual(steps, ['scope', 'policy', 'record:denied']);
  assert.equal(codeOf(s.refused[0]), 'airlock_approval_required');
  const ended: string[] = [];
  const controller = new AbortController();
  const approvals: ApprovalHook = { request: async () => (controller.abort(), YES) };
  const e = source(ended);
  await passGate({ approvals }, e, run({ signal: controller.signal }));
  assert.equal(codeOf(e.refused[0]), 'airlock_run_ended');
  assert.ok(!ended.some((step) => step.startsWith('send')), 'nothing sent');
});
