// The key in any form a script or a log reader could decode: each attack is
// a way an API (or a script) might hand the key back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRedactor, redactDeep, REDACTED } from '../../main/core/log/redactor.ts';

const KEY = 'oa_sk_CANARY_9f8e7d6c5b4a';
const redact = createRedactor([KEY]);

/** True when the text, decoded every way the attacker could, still spells 8+ consecutive characters of the key. */
function stillLeaks(text: string): boolean {
  const pieces = new Set<string>();
  for (let i = 0; i + 8 <= KEY.length; i++) pieces.add(KEY.slice(i, i + 8));
  const decodings = [
    text,
    (() => {
      try {
        return decodeURIComponent(decodeURIComponent(text.replace(/\+/g, ' ')));
      } catch {
        return '';
      }
    })(),
    text.replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/\\\//g, '/'),
    Buffer.from(text.replace(/[^0-9a-f]/gi, ''), 'hex').toString('latin1'),
    Buffer.from(text.replace(/[^0-9a-f]/gi, '').slice(1), 'hex').toString('latin1'),
    ...[0, 1, 2, 3].map((a) => Buffer.from(text.replace(/[^A-Za-z0-9+/_-]/g, '').slice(a), 'base64').toString('latin1')),
  ];
  return decodings.some((d) => [...pieces].some((p) => d.includes(p)));
}

test('clear, URL-encoded (once, twice, + for space), hex (both cases) are scrubbed', { timeout: 10_000 }, () => {
  for (const form of [
    KEY,
    encodeURIComponent(`${KEY}/+ x`),
    encodeURIComponent(encodeURIComponent(KEY)),
    encodeURIComponent(`a b ${KEY}`).replace(/%20/g, '+'),
    KEY.split('')
      .map((c) => `%${c.charCodeAt(0).toString(16)}`)
      .join(''),
    Buffer.from(KEY).toString('hex'),
    Buffer.from(KEY).toString('hex').toUpperCase(),
    `0${Buffer.from(KEY).toString('hex')}`, // odd alignment
  ]) {
    const out = redact(`before ${form} after`);
    assert.ok(out.includes(REDACTED), form);
    assert.equal(stillLeaks(out), false, form);
    assert.equal(redact.leaks(out), false, form);
    assert.match(out, /^before .*after$/);
  }
});

test('attack: JSON string escapes that spell the key (\\uXXXX, \\/, mixed) are caught where they decode', { timeout: 10_000 }, () => {
  const unicode = KEY.split('')
    .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');
  const mixed = KEY.split('')
    .map((c, i) => (i % 3 === 0 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
    .join('');
  const slashed = `${KEY.slice(0, 10)}\\/${KEY.slice(10)}`;
  for (const escaped of [unicode, mixed, `"token":"${unicode}"`, `\\x${KEY.charCodeAt(0).toString(16)}${KEY.slice(1)}`]) {
    const body = `{"echo":"${escaped}"}`;
    assert.equal(redact.leaks(body), true, escaped);
    const out = redact(body);
    assert.ok(out.includes(REDACTED), escaped);
    assert.equal(stillLeaks(out), false, escaped);
  }
  // A slash escape splits the key: both halves (10 and 15 characters) are longer than 8, so both go.
  assert.equal(stillLeaks(redact(slashed)), false);
});

test('attack: HTML numeric entities are decoded before the scan', { timeout: 10_000 }, () => {
  const dec = KEY.split('')
    .map((c) => `&#${c.charCodeAt(0)};`)
    .join('');
  const hex = KEY.split('')
    .map((c) => `&#x${c.charCodeAt(0).toString(16)};`)
    .join('');
  for (const form of [dec, hex]) assert.ok(redact(`<p>${form}</p>`).includes(REDACTED), form);
});

test('base64 and base64url at every alignment, and MIME-wrapped (76 columns, CRLF or LF)', { timeout: 10_000 }, () => {
  for (const prefix of ['', 'a', 'ab', 'abc', 'Bearer ', 'user:', 'x'.repeat(50)]) {
    for (const suffix of ['', '!', '!!', '"}', 'y'.repeat(80)]) {
      const raw = Buffer.from(`${prefix}${KEY}${suffix}`);
      const b64 = raw.toString('base64');
      for (const encoded of [b64, raw.toString('base64url'), b64.replace(/.{76}/g, '$&\r\n'), b64.replace(/.{76}/g, '$&\n')]) {
        assert.equal(redact.leaks(encoded), true, `${prefix}|${suffix}`);
        const out = redact(`x ${encoded} y`);
        const decoded = [0, 1, 2, 3].map((a) =>
          Buffer.from(
            out
              .replace(/\[REDACTED\]/g, '')
              .replace(/\s/g, '')
              .slice(a),
            'base64',
          ).toString('latin1'),
        );
        for (const d of decoded)
          for (let i = 0; i + 8 <= KEY.length; i++) assert.ok(!d.includes(KEY.slice(i, i + 8)), `${prefix}|${suffix}: ${KEY.slice(i, i + 8)}`);
      }
    }
  }
});

test('attack: pieces of 8 or more characters are redacted whole; shorter ones are not', { timeout: 10_000 }, () => {
  // An API that echoes a slice of the Authorization header.
  const slice = KEY.slice(5, 17);
  assert.equal(redact(`echo: ${slice}.`), `echo: ${REDACTED}.`);
  // Reassembly from two echoes of 8+ characters each fails: both go.
  const out = redact(`first=${KEY.slice(0, 12)}&second=${KEY.slice(12)}`);
  assert.equal(out, `first=${REDACTED}&second=${REDACTED}`);
  // A 7-character piece is below the line (stated in the README's threat model).
  assert.equal(redact(`x ${KEY.slice(3, 10)} y`), `x ${KEY.slice(3, 10)} y`);
  // Pieces inside encodings too.
  assert.ok(redact(Buffer.from(`zz${KEY.slice(4, 16)}zz`).toString('base64')).includes(REDACTED));
  assert.ok(redact(Buffer.from(KEY.slice(6, 15)).toString('hex')).includes(REDACTED));
});

test('bytes: a binary body carrying the key in any form is scrubbed before it is base64-encoded for the script', { timeout: 10_000 }, () => {
  const bin = Buffer.concat([
    Buffer.from([0, 1, 2, 255]),
    Buffer.from(KEY),
    Buffer.from([254, 0]),
    Buffer.from(Buffer.from(KEY).toString('base64')),
    Buffer.from([7]),
  ]);
  const scrubbed = redact.redactBytes(bin);
  assert.equal(scrubbed.includes(Buffer.from(KEY.slice(0, 8))), false);
  assert.equal(redact.leaks(scrubbed.toString('latin1')), false);
  assert.equal(scrubbed[0], 0);
  assert.equal(scrubbed[3], 255);
});

test('no key in sight: text comes back unchanged, even long base64 and hex', { timeout: 10_000 }, () => {
  const text = `plain ${Buffer.from('x'.repeat(500)).toString('base64')} ${'ab'.repeat(200)} %41%42 \\u0041 &#65;`;
  assert.equal(redact(text), text);
  assert.equal(redact.leaks(text), false);
});

test('redaction reaches every string of a JSON value, keys included', { timeout: 10_000 }, () => {
  const out = redactDeep({ a: [KEY, { [KEY]: `x${KEY}` }], n: 1 }, redact);
  assert.ok(!JSON.stringify(out).includes(KEY));
  assert.deepEqual((out as { n: number }).n, 1);
});

test('no secret, no change', { timeout: 10_000 }, () => {
  const none = createRedactor([undefined, '']);
  assert.equal(none('nothing to hide'), 'nothing to hide');
  assert.equal(none.leaks('anything'), false);
  assert.deepEqual(none.redactBytes(Buffer.from('x')), Buffer.from('x'));
});
