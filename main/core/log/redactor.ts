// Scrubs secrets from what leaves Airlock (responses handed to a sandbox,
// run results, logs, audit fields, errors) where the data is decoded, not
// only as raw text. The text is read through several decoding views — as
// is; percent-decoded (once and twice, `+` as space); with JSON/JS escapes
// (`\uXXXX`, `\xXX`, `\/`) and HTML numeric entities decoded; hex runs
// (either case, both nibble alignments); base64 and base64url runs at all
// four character alignments, line breaks allowed (MIME wrapping) — and in
// every view, any run of 8 or more consecutive bytes of the key is found and
// the characters that encode it are replaced with [REDACTED]. Keys shorter
// than 8 are matched whole. What no scan can see (pieces under 8 bytes,
// transformations such as reversal or encryption) is stated in the README's
// threat model.

export const REDACTED = '[REDACTED]';
/** The shortest value written inline for a server (an env var, a header) that is taken for a secret: `LOG_LEVEL=info` is not. */
export const INLINE_SECRET_MIN_CHARS = 8;
/** Pieces of a key at least this long are redacted wherever they appear. */
export const FRAGMENT_BYTES = 8;

export interface Redactor {
  (text: string): string;
  /** True when the text holds a secret (or a fragment of one) in any form the scan reads. */
  leaks(text: string): boolean;
  /** The same scan over bytes (binary bodies): matched byte ranges become `[REDACTED]`. */
  redactBytes(bytes: Buffer): Buffer;
}

type Range = [number, number];

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Finds maximal runs of one key inside a string: every window of `min`
 * characters of the key is looked for, then each hit is extended as far as
 * the key continues.
 */
class RunFinder {
  private readonly key: string;
  private readonly min: number;
  private readonly pattern: RegExp;
  private readonly offsets = new Map<string, number[]>();

  constructor(key: string, min: number) {
    this.key = key;
    this.min = min;
    const grams = new Set<string>();
    for (let i = 0; i + min <= key.length; i++) {
      const g = key.slice(i, i + min);
      grams.add(g);
      this.offsets.set(g, [...(this.offsets.get(g) ?? []), i]);
    }
    this.pattern = new RegExp([...grams].map(escapeRegExp).join('|'), 'g');
  }

  /** Whether any window of the key is in the text. */
  test(text: string): boolean {
    this.pattern.lastIndex = 0;
    const found = this.pattern.test(text);
    this.pattern.lastIndex = 0;
    return found;
  }

  runs(text: string): Range[] {
    const out: Range[] = [];
    this.pattern.lastIndex = 0;
    for (let m = this.pattern.exec(text); m; m = this.pattern.exec(text)) {
      const start = m.index;
      let best = this.min;
      for (const offset of this.offsets.get(m[0]) ?? []) {
        let len = this.min;
        while (start + len < text.length && offset + len < this.key.length && text[start + len] === this.key[offset + len]) len++;
        if (len > best) best = len;
      }
      out.push([start, start + best]);
      this.pattern.lastIndex = start + best;
    }
    return out;
  }
}

/** A decoded reading of (part of) the text: its characters, and for each one the original range it came from. */
interface View {
  text: string;
  from: Int32Array; // original start of decoded char i
  to: Int32Array; // original end of decoded char i
}

function mapRanges(view: View, ranges: Range[]): Range[] {
  return ranges.map(([a, b]) => [view.from[a]!, view.to[b - 1]!]);
}

/** Decodes escape tokens matched by `token` (with `decode` giving the char), keeping other characters as they are. */
function tokenView(text: string, token: RegExp, decode: (m: RegExpExecArray) => string | undefined, worth: (decoded: string) => boolean): View | undefined {
  token.lastIndex = 0;
  if (!token.test(text)) return undefined;
  // Cheap first: decode without keeping positions; build the map only when the key is in there.
  token.lastIndex = 0;
  const quick = text.replace(token, (...args: unknown[]) => {
    const m = args.slice(0, -2) as unknown as RegExpExecArray;
    return decode(m) ?? (m[0] as string);
  });
  if (!worth(quick)) return undefined;
  token.lastIndex = 0;
  let out = '';
  const from: number[] = [];
  const to: number[] = [];
  let i = 0;
  for (let m = token.exec(text); m; m = token.exec(text)) {
    for (; i < m.index; i++) {
      out += text[i];
      from.push(i);
      to.push(i + 1);
    }
    const decoded = decode(m);
    if (decoded === undefined) {
      token.lastIndex = m.index + 1;
      continue;
    }
    for (const ch of decoded) {
      out += ch;
      from.push(m.index);
      to.push(m.index + m[0].length);
    }
    i = m.index + m[0].length;
  }
  for (; i < text.length; i++) {
    out += text[i];
    from.push(i);
    to.push(i + 1);
  }
  return { text: out, from: Int32Array.from(from), to: Int32Array.from(to) };
}

const PERCENT = /%([0-9a-fA-F]{2})|\+/g;
const ESCAPES = /\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\([\\/"'])/g;
const ENTITIES = /&#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}));?/g;

/** Byte values as chars (a UTF-8 byte stream read as latin1), so a key's UTF-8 bytes can be compared. */
function byteChar(code: number): string {
  return String.fromCharCode(code);
}

function compose(outer: View, inner: View): View {
  const from = new Int32Array(inner.text.length);
  const to = new Int32Array(inner.text.length);
  for (let i = 0; i < inner.text.length; i++) {
    from[i] = outer.from[inner.from[i]!]!;
    to[i] = outer.to[inner.to[i]! - 1]!;
  }
  return { text: inner.text, from, to };
}

const percentChar = (m: RegExpExecArray) => (m[0] === '+' ? ' ' : byteChar(parseInt(m[1]!, 16)));

function textViews(text: string, worth: (decoded: string) => boolean): View[] {
  const views: View[] = [];
  // Twice-encoded: worth building the first view when its own decoding, decoded again, holds the key.
  const twiceWorth = (decoded: string) =>
    worth(decoded) || worth(decoded.replace(PERCENT, (...a: unknown[]) => percentChar(a.slice(0, -2) as unknown as RegExpExecArray)));
  const percent = tokenView(text, PERCENT, percentChar, twiceWorth);
  if (percent) {
    views.push(percent);
    const twice = tokenView(percent.text, PERCENT, percentChar, worth);
    if (twice) views.push(compose(percent, twice));
  }
  const escapes = tokenView(text, ESCAPES, (m) => (m[1] ? String.fromCharCode(parseInt(m[1], 16)) : m[2] ? byteChar(parseInt(m[2], 16)) : m[3]), worth);
  if (escapes) views.push(escapes);
  const entities = tokenView(
    text,
    ENTITIES,
    (m) => {
      const code = m[1] ? parseInt(m[1], 16) : parseInt(m[2]!, 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
    },
    worth,
  );
  if (entities) views.push(entities);
  return views;
}

/** Hex runs decoded at both nibble alignments. */
function hexViews(text: string, minBytes: number, worth: (decoded: string) => boolean): View[] {
  const views: View[] = [];
  const run = new RegExp(`[0-9a-fA-F]{${minBytes * 2},}`, 'g');
  for (let m = run.exec(text); m; m = run.exec(text)) {
    for (const shift of [0, 1]) {
      const digits = m[0].slice(shift);
      const n = Math.floor(digits.length / 2);
      if (n < minBytes) continue;
      const bytes = Buffer.from(digits.slice(0, n * 2), 'hex');
      const decoded = bytes.toString('latin1');
      if (!worth(decoded)) continue;
      const from = new Int32Array(n);
      const to = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        from[i] = m.index + shift + 2 * i;
        to[i] = m.index + shift + 2 * i + 2;
      }
      views.push({ text: decoded, from, to });
    }
  }
  return views;
}

/** base64 / base64url runs (line breaks allowed inside: MIME wrapping), decoded at all four alignments. */
function base64Views(text: string, minBytes: number, worth: (decoded: string) => boolean, hint: (run: string) => boolean): View[] {
  const views: View[] = [];
  const minChars = Math.ceil((minBytes * 4) / 3);
  const run = /[A-Za-z0-9+/_-](?:[A-Za-z0-9+/_=-]|\r?\n(?=[A-Za-z0-9+/_-]))*/g;
  for (let m = run.exec(text); m; m = run.exec(text)) {
    if (m[0].length < minChars) continue;
    // Cheap first: the four alignments decoded without positions.
    const flatRun = m[0].replace(/[\r\n]/g, '');
    if (!hint(flatRun)) continue;
    const plain = flatRun.replace(/=/g, '').replace(/-/g, '+').replace(/_/g, '/');
    let any = false;
    for (let align = 0; align < 4 && !any; align++) any = worth(Buffer.from(plain.slice(align), 'base64').toString('latin1'));
    if (!any) continue;
    // The run's base64 characters and where each sits in the text.
    const positions: number[] = [];
    let chars = '';
    for (let i = 0; i < m[0].length; i++) {
      const c = m[0][i]!;
      if (c === '\r' || c === '\n' || c === '=') continue;
      chars += c === '-' ? '+' : c === '_' ? '/' : c;
      positions.push(m.index + i);
    }
    for (let align = 0; align < 4; align++) {
      const usable = Math.floor((chars.length - align) / 4) * 4;
      if (usable < minChars) continue;
      const bytes = Buffer.from(chars.slice(align, align + usable), 'base64');
      const from = new Int32Array(bytes.length);
      const to = new Int32Array(bytes.length);
      for (let i = 0; i < bytes.length; i++) {
        // Byte i is carried by base64 characters floor(i*4/3) … floor(i*4/3)+1 of the aligned slice.
        const first = align + Math.floor((i * 4) / 3);
        from[i] = positions[first]!;
        to[i] = positions[Math.min(first + 1, positions.length - 1)]! + 1;
      }
      views.push({ text: bytes.toString('latin1'), from, to });
    }
  }
  return views;
}

function mergeRanges(ranges: Range[]): Range[] {
  const sorted = ranges.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const out: Range[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

interface KeyMatcher {
  /** The key as a JS string (clear text). */
  chars: RunFinder;
  /** The key's UTF-8 bytes read as latin1 (decoded views). */
  bytes: RunFinder;
  minBytes: number;
  /** Quick tests: some window of the key, base64- or hex-encoded, is in the (line-break-free) text. */
  base64Hint: RegExp;
  hexHint: RegExp;
}

/** The base64 characters that encode `window` whatever bytes surround it, at each of the three byte alignments (and base64url). */
function base64Stable(window: Buffer): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), window])
      .toString('base64')
      .replace(/=+$/, '');
    const fragment = encoded.slice(offset === 0 ? 0 : Math.ceil((offset * 4) / 3), Math.floor(((offset + window.length) * 4) / 3));
    if (fragment.length >= 4) out.push(fragment, fragment.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

function matcherFor(secret: string): KeyMatcher {
  const raw = Buffer.from(secret, 'utf8');
  const bytes = raw.toString('latin1');
  const min = secret.length >= FRAGMENT_BYTES ? FRAGMENT_BYTES : secret.length;
  const minBytes = bytes.length >= FRAGMENT_BYTES ? FRAGMENT_BYTES : bytes.length;
  const b64 = new Set<string>();
  const hex = new Set<string>();
  for (let i = 0; i + minBytes <= raw.length; i++) {
    const window = raw.subarray(i, i + minBytes);
    for (const f of base64Stable(window)) b64.add(f);
    hex.add(window.toString('hex'));
  }
  return {
    chars: new RunFinder(secret, min),
    bytes: new RunFinder(bytes, minBytes),
    minBytes,
    base64Hint: new RegExp([...b64].map(escapeRegExp).join('|')),
    hexHint: new RegExp([...hex].join('|'), 'i'),
  };
}

function rangesIn(text: string, matchers: KeyMatcher[]): Range[] {
  const found: Range[] = [];
  const minBytes = Math.min(...matchers.map((m) => m.minBytes));
  const worth = (decoded: string) => matchers.some((k) => k.bytes.test(decoded) || k.chars.test(decoded));
  // The encoded views are decoded only when an encoded window of a key is in sight (MIME line breaks removed first).
  const flat = /[\r\n]/.test(text) ? text.replace(/\r?\n/g, '') : text;
  const views = [
    ...textViews(text, worth),
    ...(matchers.some((k) => k.hexHint.test(flat)) ? hexViews(text, minBytes, worth) : []),
    ...(matchers.some((k) => k.base64Hint.test(flat)) ? base64Views(text, minBytes, worth, (run) => matchers.some((k) => k.base64Hint.test(run))) : []),
  ];
  for (const k of matchers) {
    found.push(...k.chars.runs(text), ...k.bytes.runs(text));
    for (const view of views) found.push(...mapRanges(view, k.bytes.runs(view.text)), ...mapRanges(view, k.chars.runs(view.text)));
  }
  return mergeRanges(found);
}

function apply(text: string, ranges: Range[]): string {
  if (ranges.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [a, b] of ranges) {
    out += text.slice(at, a) + REDACTED;
    at = b;
  }
  return out + text.slice(at);
}

/** A redactor for the given secrets (empty and very short ones are ignored). */
/** The keys each redactor was made for, so several can be joined into one scan (see joinRedactors). */
const KEYS_OF = new WeakMap<Redactor, readonly string[]>();

/**
 * One redactor for every key the given ones know. Applying them one after another would not do: a fragment
 * the first redacts can break a second key apart, leaving pieces of it the second no longer recognises.
 */
export function joinRedactors(redactors: readonly Redactor[]): Redactor {
  const unique = [...new Set(redactors)];
  if (unique.length === 1) return unique[0]!;
  if (unique.length === 0) return createRedactor([]);
  return createRedactor(
    unique.flatMap((r) => {
      const keys = KEYS_OF.get(r);
      if (!keys) throw new Error('joinRedactors: a redactor not made by createRedactor');
      return keys;
    }),
  );
}

export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const keys = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4))];
  if (keys.length === 0) {
    const identity = ((text: string) => text) as Redactor;
    identity.leaks = () => false;
    identity.redactBytes = (bytes) => bytes;
    KEYS_OF.set(identity, keys);
    return identity;
  }
  const matchers = keys.map(matcherFor);
  const redact = ((text: string) => (typeof text === 'string' && text.length > 0 ? apply(text, rangesIn(text, matchers)) : text)) as Redactor;
  redact.leaks = (text: string) => typeof text === 'string' && rangesIn(text, matchers).length > 0;
  redact.redactBytes = (bytes: Buffer) => {
    const view = bytes.toString('latin1');
    const ranges = rangesIn(view, matchers);
    return ranges.length === 0 ? bytes : Buffer.from(apply(view, ranges), 'latin1');
  };
  KEYS_OF.set(redact, keys);
  return redact;
}

/** Redacts every string inside a JSON-like value, keys included. */
export function redactDeep(value: unknown, redact: (s: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[redact(k)] = redactDeep(v, redact, depth + 1);
  return out;
}
