// Another MCP server's questions (serverQuestions.ts, the broker, the CLI's flags): the form a schema asks for, an
// answer checked against it (which field, what is wrong), the answer handed back only on a yes, put with the call
// it came with, and declined when it cannot be asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApprovalBroker, type BrokerEvent } from '../../main/core/approvals/approvalBroker.ts';
import { questionFields, serverQuestions } from '../../main/core/upstream/serverQuestions.ts';
import { answerProblem, type ServerQuestionRequest } from '../../contract/approvals.ts';
import { answerFromFlags } from '../../main/cli/commands/approvals.ts';
import type { RunContext } from '../../main/core/gate/runContext.ts';
import { silentLogger } from '../../main/core/log/logger.ts';

const SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string', title: 'City', description: 'Where' },
    days: { type: 'integer' },
    unit: { type: 'string', enum: ['C', 'F'], default: 'C' },
    size: {
      type: 'string',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
    },
    metric: { type: 'boolean', default: true },
  },
  required: ['city', 'days'],
};

/** How many times a question stopped its run's clock (as an approval does). */
let paused = 0;
const run = (signal?: AbortSignal): RunContext =>
  ({
    runId: 'run-1',
    caller: { key: 'http:s1', transport: 'http', clientName: 'asker' },
    scriptSha256: 'abc',
    script: 'return await mcp.weather.ask({})',
    control: {
      whilePaused: <T>(work: () => Promise<T>) => {
        paused++;
        return work();
      },
    } as never,
    calls: [],
    ...(signal ? { signal } : {}),
  }) as RunContext;

function broker() {
  const b = new ApprovalBroker({ timeoutMs: 60_000, approversAvailable: () => true, noApproverMessage: 'no one' });
  const next = () =>
    new Promise<ServerQuestionRequest & { id: string }>((resolve) => {
      const off = b.subscribe((e: BrokerEvent) => {
        if (e.type === 'approval-requested' && e.approval.request.kind === 'server-question') {
          off();
          resolve({ ...e.approval.request, id: e.approval.id });
        }
      });
    });
  return { b, next };
}

test('the form a schema asks for: types, required, choices (enum or oneOf), defaults, the server words redacted', () => {
  const fields = questionFields(SCHEMA, (t) => t.replace('Where', '[redacted]'));
  assert.ok(Array.isArray(fields));
  assert.deepEqual(fields, [
    { name: 'city', type: 'string', required: true, title: 'City', description: '[redacted]' },
    { name: 'days', type: 'integer', required: true },
    { name: 'unit', type: 'string', required: false, choices: ['C', 'F'], default: 'C' },
    { name: 'size', type: 'string', required: false, choices: ['s', 'l'] },
    { name: 'metric', type: 'boolean', required: false, default: true },
  ]);
  assert.match(String(questionFields({ properties: { tags: { type: 'array' } } }, (t) => t)), /field "tags" is of a kind/);
});

test('an answer is checked against the fields, naming the one that does not fit', () => {
  const fields = questionFields(SCHEMA, (t) => t) as Exclude<ReturnType<typeof questionFields>, string>;
  assert.equal(answerProblem(fields, { city: 'Lyon', days: 3 }), undefined);
  assert.equal(answerProblem(fields, { city: 'Lyon' }), '"days" needs an answer');
  assert.equal(answerProblem(fields, { city: 'Lyon', days: 2.5 }), '"days" is a whole number');
  assert.equal(answerProblem(fields, { city: 'Lyon', days: 3, unit: 'K' }), '"unit" is one of: C, F');
  assert.equal(answerProblem(fields, { city: 'Lyon', days: 3, metric: 'yes' }), '"metric" is yes or no');
  assert.match(answerProblem(fields, { city: 'Lyon', days: 3, admin: true }) ?? '', /no field "admin"/);
});

test('the CLI reads --answer flags as the fields take them, the defaults filling the rest', () => {
  const fields = questionFields(SCHEMA, (t) => t) as Exclude<ReturnType<typeof questionFields>, string>;
  assert.deepEqual(answerFromFlags(fields, ['city=Saint-Étienne=Loire', 'days=4', 'metric=no']), {
    city: 'Saint-Étienne=Loire',
    days: 4,
    unit: 'C',
    metric: false,
  });
  assert.throws(() => answerFromFlags(fields, ['days=four']), /"days" is a number/);
  assert.throws(() => answerFromFlags(fields, ['colour=red']), /no field "colour"/);
  assert.throws(() => answerFromFlags(fields, ['city']), /field=value/);
});

test("a question is put with the call it came with; the person's answer goes back, a misfit is refused first, nothing is granted", async () => {
  const { b, next } = broker();
  const questions = serverQuestions({ approvals: b, logger: silentLogger, redact: (t) => t });
  const put = next();
  const answered = questions.during({ server: 'weather', tool: 'forecast', run: run() }, () => questions.ask('weather', 'Which city?', SCHEMA));
  const q = await put;
  assert.equal(q.caller.clientName, 'asker');
  assert.equal(q.call, 'mcp.weather.forecast');
  assert.equal(q.message, 'Which city?');
  assert.throws(() => b.decide(q.id, { approve: true, scope: 'once', answer: { city: 'Lyon' } }, 'root'), /"days" needs an answer; nothing was sent/);
  assert.throws(() => b.decide(q.id, { approve: true, scope: 'always', answer: { city: 'Lyon', days: 1 } }, 'root'), /answered once/);
  const before = paused;
  b.decide(q.id, { approve: true, scope: 'once', answer: { city: 'Lyon', days: 1 } }, 'root');
  assert.deepEqual(await answered, { city: 'Lyon', days: 1 });
  assert.ok(paused > before || paused > 0, "the run's clock stood still while the person answered");
  assert.deepEqual(b.grants.list(), [], 'nothing granted');
});

test('a no declines; a question outside any call, or one the prompt cannot ask, is declined without asking', async () => {
  const { b, next } = broker();
  let asked = 0;
  b.subscribe((e) => void (e.type === 'approval-requested' && asked++));
  const questions = serverQuestions({ approvals: b, logger: silentLogger, redact: (t) => t });
  const put = next();
  const declined = questions.during({ server: 'weather', tool: 'forecast', run: run() }, () => questions.ask('weather', 'Which city?', SCHEMA));
  b.decide((await put).id, { approve: false }, 'root');
  assert.equal(await declined, undefined);
  assert.equal(await questions.ask('weather', 'Out of the blue?', SCHEMA), undefined);
  const list = await questions.during({ server: 'weather', tool: 'forecast', run: run() }, () =>
    questions.ask('weather', 'Tags?', { properties: { tags: { type: 'array' } } }),
  );
  assert.equal(list, undefined);
  assert.equal(asked, 1, 'only the first was put to the person');
});

test("a 2025 server asks outside the call's async context: the question goes with the call in flight to that server", async () => {
  const { b, next } = broker();
  const questions = serverQuestions({ approvals: b, logger: silentLogger, redact: (t) => t });
  let release!: () => void;
  const call = questions.during({ server: 'weather', tool: 'forecast', run: run() }, () => new Promise<void>((r) => (release = r)));
  // Asked from elsewhere (as the SDK's transport delivers a server's own request), while the call is in flight.
  const put = next();
  const answer = questions.ask('weather', 'Which city?', SCHEMA);
  const q = await put;
  assert.equal(q.runId, 'run-1');
  b.decide(q.id, { approve: true, scope: 'once', answer: { city: 'Paris', days: 2 } }, 'root');
  assert.deepEqual(await answer, { city: 'Paris', days: 2 });
  release();
  await call;
});
