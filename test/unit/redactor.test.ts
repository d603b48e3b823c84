import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRedactor, redactDeep, REDACTED } from '../../main/core/egress/redactor.ts';

const KEY = 'oa_sk_CANARY_9f8e7d6c5b4a';

test('the key is scrubbed in clear, URL-encoded, hex and JSON forms', () => {
  const redact = createRedactor([KEY]);
  for (const form of [
    KEY,
    encodeURIComponent(`${KEY}/+`),
    Buffer.from(KEY).toString('hex'),
    Buffer.from(KEY).toString('hex').toUpperCase(),
    JSON.stringify({ k: KEY }),
  ]) {
    const out = redact(`before ${form} after`);
    assert.ok(!out.includes(KEY), form);
    assert.ok(out.includes(REDACTED), form);
    assert.equal(redact.leaks(out), false);
  }
});

test('base64 and base64url are scrubbed at every alignment inside longer strings', () => {
  const redact = createRedactor([KEY]);
  for (const prefix of ['', 'a', 'ab', 'abc', 'Bearer ', 'user:']) {
    for (const suffix of ['', '!', '!!', '"}']) {
      const raw = Buffer.from(`${prefix}${KEY}${suffix}`);
      for (const encoded of [raw.toString('base64'), raw.toString('base64url')]) {
        assert.equal(redact.leaks(encoded), true, `${prefix}|${suffix}`);
        const out = redact(encoded);
        const decoded = Buffer.from(out.replace(/\[REDACTED\]/g, ''), 'base64').toString('latin1');
        assert.ok(!decoded.includes(KEY), `${prefix}|${suffix}`);
      }
    }
  }
});

test('redaction reaches every string of a JSON value, keys included', () => {
  const redact = createRedactor([KEY]);
  const out = redactDeep({ a: [KEY, { [KEY]: `x${KEY}` }], n: 1 }, redact);
  assert.ok(!JSON.stringify(out).includes(KEY));
  assert.deepEqual((out as { n: number }).n, 1);
});

test('no secret, no change', () => {
  const redact = createRedactor([undefined, '']);
  assert.equal(redact('nothing to hide'), 'nothing to hide');
  assert.equal(redact.leaks('anything'), false);
});
