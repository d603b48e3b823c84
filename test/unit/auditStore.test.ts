// The audit store: both record kinds round-trip, API calls link to their tool
// call by runId, filters and paging are exact, exports parse back, and the
// second-layer redactor keeps a canary key out of the database file bytes
// (main file, -wal and -shm read raw) and out of exports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { INPUT_CAP_BYTES, openAuditStore, type AuditStore, type AuditStoreOptions } from '../../main/core/audit/auditStore.ts';
import type { AuditEntry, ToolCallInput } from '../../main/core/audit/types.ts';
import type { ApiCallEntry, ApiCallRecord } from '../../main/core/audit/types.ts';
import { createRedactor } from '../../main/core/log/redactor.ts';
import { AirlockError } from '../../main/core/util/errors.ts';
import { withAuditStore } from '../helpers/auditStores.ts';
import { tempDir } from '../helpers/paths.ts';
import { DatabaseSync } from 'node:sqlite';
import { callKindOf } from '../../contract/calls.ts';

const T0 = Date.parse('2030-06-01T12:00:00Z');

const withStore = (run: (store: AuditStore, file: string) => void | Promise<void>, options: Partial<AuditStoreOptions> = {}) =>
  withAuditStore(T0, run, options);

function apiCall(overrides: Partial<ApiCallRecord> = {}): ApiCallRecord {
  return {
    runId: 'run-1',
    callerKey: 'stdio:claude-ai',
    operationId: 'events.list',
    method: 'GET',
    url: 'https://api.example.test/v3/events?size=5',
    status: 200,
    durationMs: 41.5,
    bytes: 1234,
    decision: 'read',
    startedAt: new Date(T0).toISOString(),
    ...overrides,
  };
}

function toolCall(overrides: Partial<ToolCallInput> = {}): ToolCallInput {
  return {
    time: new Date(T0).toISOString(),
    clientName: 'claude-ai',
    clientVersion: '0.9.1',
    transport: 'stdio',
    tool: 'execute',
    outcome: 'ok',
    durationMs: 87,
    input: 'const r = await api.events.list({ query: { size: 5 } });\nreturn r.data;',
    bytesOut: 512,
    credentialFingerprint: 'sha256:1a2b3c4d5e6f',
    profile: 'openagenda',
    runId: 'run-1',
    ...overrides,
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

test(
  'both record kinds round-trip, and API calls written before their tool call link to it by runId',
  withStore(async (store) => {
    const a1 = await store.recordApiCall(apiCall());
    const a2 = await store.recordApiCall(
      apiCall({
        operationId: 'events.create',
        method: 'POST',
        status: 201,
        decision: 'approved',
        approval: { by: 'desktop', at: '2030-06-01T12:00:01.000Z', scope: 'once' },
      }),
    );
    await store.recordApiCall(apiCall({ runId: 'run-2' }));
    const tool = await store.recordToolCall(toolCall({ sessionId: 'sess-9' }));

    assert.deepEqual([a1.seq, a2.seq, tool.seq], [1, 2, 4]);
    assert.deepEqual(store.get(1), a1);
    assert.deepEqual(store.get(2), a2);
    assert.deepEqual(store.get(4), tool);
    assert.equal(store.get(99), undefined);

    assert.equal(a2.kind, 'api');
    assert.deepEqual(a2.approval, { by: 'desktop', at: '2030-06-01T12:00:01.000Z', scope: 'once' });
    assert.equal(a2.outcome, 'ok');
    assert.equal(a1.time, a1.startedAt);

    assert.equal(tool.kind, 'tool');
    assert.equal(tool.clientName, 'claude-ai');
    assert.equal(tool.clientVersion, '0.9.1');
    assert.equal(tool.transport, 'stdio');
    assert.equal(tool.sessionId, 'sess-9');
    assert.equal(tool.tool, 'execute');
    assert.equal(tool.outcome, 'ok');
    assert.equal(tool.durationMs, 87);
    assert.equal(tool.bytesOut, 512);
    assert.equal(tool.credentialFingerprint, 'sha256:1a2b3c4d5e6f');
    assert.equal(tool.profile, 'openagenda');
    assert.equal(tool.input, toolCall().input);
    assert.equal(tool.inputSha256, sha256(toolCall().input as string));
    assert.equal(tool.inputTruncated, false);
    assert.equal(tool.prevHash, store.get(3)!.hash);
    assert.equal(store.head().hash, tool.hash);

    assert.deepEqual(store.apiCallsForRun('run-1'), [a1, a2]);
    assert.deepEqual(store.apiCallsForRun('nope'), []);
    // The API calls are filed under the client and tool of their run's tool call.
    assert.deepEqual(
      store.query({ client: 'claude-ai', order: 'oldest' }).records.map((r) => r.seq),
      [1, 2, 4],
    );
    assert.deepEqual(
      store.query({ tool: 'execute', kind: 'api', order: 'oldest' }).records.map((r) => r.seq),
      [1, 2],
    );
  }),
);

test(
  'inputs: code is capped at 8 KiB on a character boundary with the hash of the full code; other tools store JSON arguments',
  withStore(async (store) => {
    const code = `return "${'é'.repeat(6000)}";`;
    const big = await store.recordToolCall(toolCall({ input: code }));
    assert.equal(big.inputTruncated, true);
    assert.equal(big.inputBytes, Buffer.byteLength(code));
    assert.equal(big.inputSha256, sha256(code));
    assert.ok(Buffer.byteLength(big.input) <= INPUT_CAP_BYTES && Buffer.byteLength(big.input) >= INPUT_CAP_BYTES - 1);
    assert.ok(code.startsWith(big.input));
    assert.ok(!big.input.includes('\uFFFD'));

    const search = await store.recordToolCall(toolCall({ tool: 'search_docs', input: { query: 'list events, "jazz"', limit: 5 }, runId: undefined }));
    assert.deepEqual(JSON.parse(search.input), { query: 'list events, "jazz"', limit: 5 });
    assert.equal(search.runId, undefined);

    const bad = await store.recordToolCall(toolCall({ credentialFingerprint: 'sk_live_not_a_fingerprint' }));
    assert.equal(bad.credentialFingerprint, 'invalid');
  }),
);

test(
  'API outcomes summarise decision, status and error',
  withStore(async (store) => {
    const outcome = async (r: Partial<ApiCallRecord>) => (await store.recordApiCall(apiCall(r))).outcome;
    assert.equal(await outcome({}), 'ok');
    assert.equal(await outcome({ decision: 'denied', status: 403, error: 'denied by desktop' }), 'denied');
    assert.equal(await outcome({ decision: 'refused', status: 0, error: 'unknown operation' }), 'refused');
    assert.equal(await outcome({ status: 404, error: 'HTTP 404' }), 'http_error');
    assert.equal(await outcome({ status: 0, error: 'fetch failed' }), 'error');
  }),
);

test('the file and its -wal and -shm are private to the user, and records survive reopening', { skip: process.platform === 'win32' }, async () => {
  const { dir, cleanup } = tempDir('airlock-audit-');
  const file = join(dir, 'nested', 'audit.sqlite');
  try {
    let store = openAuditStore({ file });
    await store.recordApiCall(apiCall());
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      assert.ok(existsSync(f), f);
      assert.equal(statSync(f).mode & 0o777, 0o600, f);
    }
    assert.equal(statSync(join(dir, 'nested')).mode & 0o777, 0o700);
    store.close();
    store = openAuditStore({ file });
    assert.equal(store.head().records, 1);
    await store.recordToolCall(toolCall());
    assert.deepEqual(store.verify(), { ok: true, records: 2 });
    store.close();
  } finally {
    cleanup();
  }
});

test('onRecord sees each committed record, and its errors never fail a write', async () => {
  const seen: AuditEntry[] = [];
  let throwing = false;
  await withStore(
    async (store) => {
      const a = await store.recordApiCall(apiCall());
      throwing = true;
      const t = await store.recordToolCall(toolCall());
      assert.deepEqual(seen, [a, t]);
      assert.equal(store.head().records, 2);
    },
    {
      onRecord: (e) => {
        seen.push(e);
        if (throwing) throw new Error('listener broke');
      },
    },
  )();
});

test('records of calls that finish together share one commit: each is on disk, in queue order, before any caller hears back', async () => {
  const { dir, cleanup } = tempDir('airlock-audit-');
  const heads: number[] = [];
  const holder: { store?: AuditStore } = {};
  const store = openAuditStore({ file: join(dir, 'audit.sqlite'), now: () => new Date(T0), onRecord: () => heads.push(holder.store!.head().seq) });
  holder.store = store;
  try {
    const entries = await Promise.all(Array.from({ length: 20 }, (_, i) => store.recordToolCall(toolCall({ runId: `run-${i}`, bytesOut: i }))));
    assert.deepEqual(
      entries.map((e) => [e.seq, e.bytesOut]),
      Array.from({ length: 20 }, (_, i) => [i + 1, i]),
    );
    // The listener of the first record already sees all twenty committed: one transaction held them.
    assert.deepEqual(
      heads,
      Array.from({ length: 20 }, () => 20),
    );
    assert.deepEqual(store.verify(), { ok: true, records: 20 });
    // A lone record later is its own commit.
    const lone = await store.recordApiCall(apiCall({ runId: 'run-late' }));
    assert.equal(lone.seq, 21);
    assert.equal(heads.at(-1), 21);
  } finally {
    store.close();
    cleanup();
  }
});

test('a record that cannot be written fails only its own call, never the others committed with it', async () => {
  await withStore(
    async (store) => {
      const results = await Promise.allSettled([
        store.recordToolCall(toolCall({ runId: 'run-a' })),
        store.recordToolCall(toolCall({ runId: 'run-b', input: 'return "POISON"' })),
        store.recordToolCall(toolCall({ runId: 'run-c' })),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      const failure = (results[1] as PromiseRejectedResult).reason as AirlockError;
      assert.ok(failure instanceof AirlockError);
      assert.match(failure.message, /could not write to the audit log/);
      assert.deepEqual(
        store.query({ order: 'oldest' }).records.map((r) => (r as { runId?: string }).runId),
        ['run-a', 'run-c'],
      );
      assert.deepEqual(store.verify(), { ok: true, records: 2 });
    },
    {
      redact: (text) => {
        if (text.includes('POISON')) throw new Error('redactor broke');
        return text;
      },
    },
  )();
});

/** A mixed history: per run i, API calls then the tool call; search_docs calls without runs between. */
async function populate(store: AuditStore, runs: number): Promise<void> {
  const clients = ['claude-ai', 'cursor', 'zed'];
  for (let i = 0; i < runs; i++) {
    const at = T0 + i * 3_600_000;
    const runId = `run-${i}`;
    for (let k = 0; k < i % 3; k++) {
      await store.recordApiCall(
        apiCall({
          runId,
          operationId: k === 0 ? 'events.list' : 'agendas.get',
          method: k === 0 ? 'GET' : 'DELETE',
          decision: k === 0 ? 'read' : i % 2 === 0 ? 'approved' : 'denied',
          url: `https://api.example.test/v3/${k === 0 ? 'events' : 'agendas/7'}?page=${i}`,
          status: i % 5 === 0 ? 500 : 200,
          ...(i % 5 === 0 ? { error: `Upstream Exploded on page ${i}` } : {}),
          startedAt: new Date(at + k).toISOString(),
        }),
      );
    }
    await store.recordToolCall(
      toolCall({
        time: new Date(at).toISOString(),
        clientName: clients[i % 3],
        runId,
        outcome: i % 4 === 0 ? 'timeout' : 'ok',
        input: `return await api.events.list({ page: ${i} }) // run ${i}`,
        profile: i % 3 === 0 ? 'github' : 'openagenda',
      }),
    );
    if (i % 2 === 0)
      await store.recordToolCall(
        toolCall({
          time: new Date(at + 1).toISOString(),
          clientName: clients[(i + 1) % 3],
          tool: 'search_docs',
          runId: undefined,
          input: { query: `Jazz concerts ${i}` },
        }),
      );
  }
}

function everything(store: AuditStore): AuditEntry[] {
  const out: AuditEntry[] = [];
  let after: number | undefined;
  do {
    const page = store.query({ order: 'oldest', limit: 500, ...(after === undefined ? {} : { after }) });
    out.push(...page.records);
    after = page.next;
  } while (after !== undefined);
  return out;
}

test(
  'paging newest first and oldest first has no duplicates and no gaps, even while records are added',
  withStore(async (store) => {
    await populate(store, 40);
    const all = everything(store).map((r) => r.seq);
    assert.equal(all.length, store.head().records);

    const newest: number[] = [];
    let before: number | undefined;
    let pages = 0;
    do {
      const page = store.query({ limit: 7, ...(before === undefined ? {} : { before }) });
      newest.push(...page.records.map((r) => r.seq));
      before = page.next;
      // New records between pages land above the cursor and never shift the pages still to come.
      if (pages++ === 1) await populate(store, 2);
    } while (before !== undefined);
    assert.deepEqual(newest, [...all].reverse());

    const oldest: number[] = [];
    let after: number | undefined;
    do {
      const page = store.query({ order: 'oldest', limit: 9, kind: 'tool', ...(after === undefined ? {} : { after }) });
      oldest.push(...page.records.map((r) => r.seq));
      after = page.next;
    } while (after !== undefined);
    const tools = everything(store)
      .filter((r) => r.kind === 'tool')
      .map((r) => r.seq);
    assert.deepEqual(oldest, tools);

    const exact = store.query({ limit: 5, kind: 'tool', tool: 'search_docs', before: 10_000 });
    assert.equal(exact.records.length, 5);
    assert.ok(exact.next !== undefined);
    const last = store.query({ limit: 500, tool: 'search_docs' });
    assert.equal(last.next, undefined, 'no cursor on the last page');
  }),
);

test(
  'filters: time range, client, tool, outcome, failed, free text, kind, runId, operation, method, decision and profile match a plain scan',
  withStore(async (store) => {
    await populate(store, 30);
    const all = everything(store);
    const runOwner = new Map(all.flatMap((r) => (r.kind === 'tool' && r.runId ? [[r.runId, r] as const] : [])));
    const owner = (r: AuditEntry) => (r.kind === 'tool' ? r : r.kind === 'api' ? runOwner.get(r.runId) : undefined);
    const text = (r: AuditEntry) =>
      [r.kind === 'tool' ? r.input : '', 'error' in r ? (r.error ?? '') : '', r.kind === 'api' ? `${r.url}\n${r.operationId}` : ''].join('\n').toLowerCase();

    const from = new Date(T0 + 5 * 3_600_000);
    const to = new Date(T0 + 9 * 3_600_000).toISOString();
    const cases: [string, Parameters<AuditStore['query']>[0], (r: AuditEntry) => boolean][] = [
      ['from/to (inclusive)', { from, to }, (r) => Date.parse(r.time) >= from.getTime() && Date.parse(r.time) <= Date.parse(to)],
      ['client', { client: 'cursor' }, (r) => owner(r)?.kind === 'tool' && (owner(r) as { clientName?: string }).clientName === 'cursor'],
      ['tool', { tool: 'search_docs' }, (r) => r.kind === 'tool' && r.tool === 'search_docs'],
      ['outcome', { outcome: 'timeout' }, (r) => r.outcome === 'timeout'],
      ['failed', { failed: true }, (r) => r.outcome !== 'ok'],
      ['text in error, any case', { text: 'upstream exploded' }, (r) => text(r).includes('upstream exploded')],
      ['text in url', { text: 'agendas/7?page=2' }, (r) => text(r).includes('agendas/7?page=2')],
      ['text in operationId', { text: 'AGENDAS.GET' }, (r) => text(r).includes('agendas.get')],
      ['text in input', { text: 'jazz concerts 1' }, (r) => text(r).includes('jazz concerts 1')],
      ['text with LIKE wildcards is literal', { text: '%_' }, () => false],
      ['kind', { kind: 'api' }, (r) => r.kind === 'api'],
      ['kinds', { kind: ['api', 'tool'] }, (r) => r.kind === 'api' || r.kind === 'tool'],
      ['runId', { runId: 'run-8' }, (r) => 'runId' in r && r.runId === 'run-8'],
      ['operation', { operation: 'agendas.get' }, (r) => r.kind === 'api' && r.operationId === 'agendas.get'],
      ['method (any case)', { method: 'delete' }, (r) => r.kind === 'api' && r.method === 'DELETE'],
      ['decision', { decision: 'denied' }, (r) => r.kind === 'api' && r.decision === 'denied'],
      [
        'profile: its tool calls and their API calls',
        { profile: 'github' },
        (r) => r.kind !== 'prune' && (r.kind === 'api' || r.tool === 'execute') && (owner(r) as { profile?: string } | undefined)?.profile === 'github',
      ],
      [
        'combined',
        { client: 'cursor', kind: 'api', failed: true },
        (r) => r.kind === 'api' && r.outcome !== 'ok' && (owner(r) as { clientName?: string }).clientName === 'cursor',
      ],
    ];
    for (const [name, q, match] of cases) {
      const expected = all
        .filter(match)
        .map((r) => r.seq)
        .reverse();
      const got = store.query({ ...q, limit: 500 }).records.map((r) => r.seq);
      assert.deepEqual(got, expected, name);
      assert.equal(store.count(q), expected.length, `${name} (count)`);
      if (name !== 'text with LIKE wildcards is literal') assert.ok(expected.length > 0, `${name} matches something`);
    }
  }),
);

test(
  'bad queries are usage errors: limit outside 1…500, a date that is not one, an unknown kind',
  withStore(async (store) => {
    const usage = (fn: () => unknown) => assert.throws(fn, (e: unknown) => e instanceof AirlockError && e.kind === 'usage');
    usage(() => store.query({ limit: 0 }));
    usage(() => store.query({ limit: 501 }));
    usage(() => store.query({ limit: 2.5 }));
    usage(() => store.query({ from: 'yesterday-ish' }));
    usage(() => store.query({ kind: 'log' as never }));
    usage(() => store.query({ before: Number.NaN }));
    assert.equal(store.query({ limit: 500 }).records.length, 0);
  }),
);

/** RFC 4180: quoted fields may hold commas, doubled quotes, CR and LF. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  assert.equal(cell, '', 'the CSV ends with a line end');
  assert.equal(quoted, false);
  return rows;
}

test(
  'exports: JSONL parses back to the records, CSV quotes commas, quotes and newlines, and both take filters',
  withStore(async (store) => {
    await populate(store, 12);
    const awkward = 'say "hi", then\nnew line\r\nand, more';
    await store.recordToolCall(toolCall({ input: awkward, error: '=HYPERLINK("http://evil.test")', outcome: 'error, odd', runId: 'run-x' }));
    const all = everything(store);

    const chunks: string[] = [];
    const jsonl = await store.export('jsonl', {}, async (chunk) => {
      await Promise.resolve();
      chunks.push(chunk);
    });
    assert.equal(jsonl.records, all.length);
    const lines = chunks.join('').split('\n');
    assert.equal(lines.pop(), '');
    assert.deepEqual(
      lines.map((l) => JSON.parse(l)),
      all,
    );

    let csv = '';
    const exported = await store.export('csv', { order: 'newest' }, (chunk) => {
      csv += chunk;
    });
    assert.equal(exported.records, all.length);
    const rows = parseCsv(csv);
    const header = rows[0]!;
    assert.equal(rows.length, all.length + 1);
    for (const r of rows) assert.equal(r.length, header.length);
    const col = (name: string) => header.indexOf(name);
    const first = rows[1]!;
    assert.equal(first[col('seq')], String(all[all.length - 1]!.seq));
    assert.equal(first[col('input')], awkward);
    assert.equal(first[col('outcome')], 'error, odd');
    assert.equal(first[col('error')], `'=HYPERLINK("http://evil.test")`, 'a formula is defused');
    assert.equal(first[col('inputTruncated')], 'false');
    assert.equal(first[col('hash')], all[all.length - 1]!.hash);
    const approvedRow = rows.find((r) => r[col('kind')] === 'api')!;
    assert.equal(approvedRow[col('transport')], '');

    let raw = '';
    await store.export(
      'csv',
      { runId: 'run-x' },
      (chunk) => {
        raw += chunk;
      },
      { formulaGuard: false },
    );
    const filtered = parseCsv(raw);
    assert.equal(filtered.length, 2);
    assert.equal(filtered[1]![col('error')], '=HYPERLINK("http://evil.test")');

    const apiOnly: string[] = [];
    const n = await store.export('jsonl', { kind: 'api', client: 'cursor' }, (chunk) => {
      apiOnly.push(chunk);
    });
    const parsed = apiOnly
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry);
    assert.equal(n.records, parsed.length);
    assert.ok(parsed.length > 0 && parsed.every((r) => r.kind === 'api'));
    assert.deepEqual(
      parsed.map((r) => r.seq),
      store.query({ kind: 'api', client: 'cursor', order: 'oldest', limit: 500 }).records.map((r) => r.seq),
    );
  }),
);

const CANARY = 'oa_sk_CANARY_5f4e3d2c1b0a9988';
const MARKER = 'PLAIN_MARKER_7c1d_not_secret';

const canaryScan = createRedactor([CANARY]);
/** Forms of the canary found in the bytes: clear, encoded, or any 8-byte piece of it (the redactor's own scan). */
function leaks(bytes: Buffer): string[] {
  const text = bytes.toString('latin1');
  return canaryScan.leaks(text) ? [canaryScan(text).length === text.length ? 'fragment' : 'canary'] : [];
}

test('a canary key given to every field is nowhere in the database bytes (main, -wal, -shm) nor in exports', async () => {
  const { dir, cleanup } = tempDir('airlock-audit-canary-');
  const file = join(dir, 'audit.sqlite');
  const redact = createRedactor([CANARY]);
  const store = openAuditStore({ file, redact });
  try {
    const b64 = Buffer.from(`user:${CANARY}`).toString('base64');
    await store.recordApiCall(
      apiCall({
        runId: `run-${CANARY}`,
        callerKey: `http:${CANARY}`,
        url: `https://api.example.test/v3/events?key=${encodeURIComponent(CANARY)}&marker=${MARKER}`,
        error: `401 for Basic ${b64}`,
        decision: 'denied',
        approval: { by: `desktop ${CANARY}`, at: new Date(T0).toISOString(), reason: `nope ${CANARY}` },
      }),
    );
    const tool = await store.recordToolCall(
      toolCall({
        clientName: `client ${CANARY}`,
        sessionId: CANARY,
        input: `const k = "${CANARY}"; // ${Buffer.from(CANARY).toString('hex')}`,
        error: `failed with ${JSON.stringify({ key: CANARY })}`,
        profile: `p-${CANARY}`,
        runId: `run-${CANARY}`,
      }),
    );
    await store.recordToolCall(toolCall({ tool: 'search_docs', input: { query: `find ${CANARY}` }, runId: undefined }));
    // The cap applies after redaction, so it cannot leave a prefix of the key the redactor no longer sees.
    const straddling = await store.recordToolCall(toolCall({ input: `${'x'.repeat(INPUT_CAP_BYTES - 3)}${CANARY}` }));
    assert.ok(!straddling.input.includes(CANARY.slice(0, 3)));
    assert.ok(tool.input.includes('[REDACTED]'));
    assert.equal(tool.inputSha256, sha256(`const k = "${CANARY}"; // ${Buffer.from(CANARY).toString('hex')}`));

    const files = [file, `${file}-wal`, `${file}-shm`];
    const raw = () => files.filter(existsSync).map((f) => [f, readFileSync(f)] as const);
    assert.ok(
      raw().some(([, b]) => b.includes(MARKER)),
      'the raw scan sees what was written',
    );
    for (const [f, bytes] of raw()) assert.deepEqual(leaks(bytes), [], f);

    let out = '';
    await store.export('jsonl', {}, (c) => {
      out += c;
    });
    await store.export('csv', {}, (c) => {
      out += c;
    });
    assert.ok(out.includes(MARKER));
    assert.deepEqual(leaks(Buffer.from(out)), []);
    assert.deepEqual(store.verify(), { ok: true, records: 4 });
  } finally {
    store.close();
  }
  try {
    // Closing checkpoints the WAL into the main file: still nothing.
    for (const f of [file, `${file}-wal`]) if (existsSync(f)) assert.deepEqual(leaks(readFileSync(f)), [], f);
  } finally {
    cleanup();
  }
});

test(
  "an API's last call is what the file says: after a restart, another process's calls, and a prune",
  withStore(async (store, file) => {
    await store.recordApiCall(apiCall({ profile: 'shop', startedAt: '2030-05-01T08:00:00.000Z' }));
    await store.recordApiCall(apiCall({ profile: 'shop', startedAt: '2030-05-31T09:00:00.000Z' }));
    await store.recordApiCall(apiCall({ profile: 'other', startedAt: '2030-05-31T10:00:00.000Z' }));
    store.close();
    const reopened = openAuditStore({ file, now: () => new Date(T0) });
    try {
      assert.equal(reopened.lastUsed('shop')?.toISOString(), '2030-05-31T09:00:00.000Z');
      assert.equal(reopened.lastUsed('other')?.toISOString(), '2030-05-31T10:00:00.000Z');
      assert.equal(reopened.lastUsed('never'), undefined);
      // Another process writing the same file (an `airlock stdio --in-process` beside the app): seen at once.
      await store2Call(file, '2030-05-31T11:00:00.000Z');
      assert.equal(reopened.lastUsed('shop')?.toISOString(), '2030-05-31T11:00:00.000Z');
      // The newest call by its time, whatever order the records were written in.
      await reopened.recordApiCall(apiCall({ profile: 'shop', startedAt: '2030-05-31T10:30:00.000Z' }));
      assert.equal(reopened.lastUsed('shop')?.toISOString(), '2030-05-31T11:00:00.000Z');
      // Pruned away: forgotten (T0 is 2030-06-01T12:00Z; keep one day).
      reopened.prune({ olderThanDays: 0.5 });
      assert.equal(reopened.lastUsed('shop'), undefined);
      assert.equal(reopened.lastUsed('other'), undefined);
    } finally {
      reopened.close();
    }
  }),
);

/** One API call recorded by a second store on the same file, as another process would. */
async function store2Call(file: string, startedAt: string): Promise<void> {
  const other = openAuditStore({ file, now: () => new Date(T0) });
  try {
    await other.recordApiCall(apiCall({ profile: 'shop', startedAt }));
  } finally {
    other.close();
  }
}

test(
  'once its data dir is removed, no record is taken for written: the call it is for is refused, not answered (issue 36 §15)',
  withStore(async (store, file) => {
    await store.recordApiCall(apiCall());
    rmSync(join(file, '..'), { recursive: true, force: true });
    await assert.rejects(
      store.recordApiCall(apiCall({ runId: 'run-2' })),
      (error: unknown) =>
        error instanceof AirlockError && /cannot keep this record: its file no longer exists \(was the data dir removed\?\)/.test(error.message),
    );
    await assert.rejects(store.recordToolCall(toolCall({ runId: 'run-2' })), /no longer exists/);
  }),
);

test(
  'a tool call of another MCP server is recorded as one, with no HTTP method; the call-kind filter reads records of any age (TOOL in the method)',
  withStore(async (store, file) => {
    await store.recordApiCall(apiCall({ runId: 'r-api' }));
    const tool = await store.recordApiCall(
      apiCall({
        runId: 'r-tool',
        callKind: 'tool-call',
        method: undefined,
        server: 'fs',
        profile: 'mcp:fs',
        operationId: 'write_file',
        url: 'mcp://fs/write_file',
      }),
    );
    assert.equal(tool.callKind, 'tool-call');
    assert.equal('method' in tool && tool.method !== undefined, false, 'no method is invented for a tool');
    assert.equal(tool.server, 'fs');
    // A caller that still says TOOL hands in a tool call: it is written as one.
    const said = await store.recordApiCall(
      apiCall({ runId: 'r-said', method: 'TOOL', profile: 'mcp:fs', operationId: 'read_file', url: 'mcp://fs/read_file' }),
    );
    assert.deepEqual([said.callKind, said.method], ['tool-call', undefined]);
    // A record as versions before the kinds wrote it: no callKind, TOOL in its method.
    const older = await store.recordApiCall(apiCall({ runId: 'r-old', operationId: 'list_dir', url: 'mcp://fs/list_dir' }));
    const db = new DatabaseSync(file);
    db.prepare("UPDATE records SET body = json_remove(json_set(body, '$.method', 'TOOL'), '$.callKind') WHERE seq = ?").run(older.seq);
    db.close();
    const runs = (callKind: string) =>
      store
        .query({ callKind, order: 'oldest' })
        .records.map((r) => (r as ApiCallEntry).runId)
        .sort();
    assert.deepEqual(runs('tool-call'), ['r-old', 'r-said', 'r-tool']);
    assert.deepEqual(runs('api-call'), ['r-api']);
    const old = store.query({ runId: 'r-old' }).records[0] as ApiCallEntry;
    assert.equal(callKindOf(old), 'tool-call', 'read as the tool call it was');
    assert.throws(() => store.query({ callKind: 'TOOL' }), /call kind must be one of api-call, tool-call, server-switch/);
  }),
);
