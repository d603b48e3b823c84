// Scrubs secrets from text in every form they are likely to travel in: clear,
// URL-encoded, base64 and base64url (at each of the three alignments a secret
// can take inside a longer encoded string, e.g. `Basic base64(user:key)`),
// hex, and JSON-escaped. Used on everything the gate hands back to a sandbox
// and on logs, audit records and errors.

export const REDACTED = '[REDACTED]';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The base64 fragments that appear whenever `secret` is encoded inside a longer byte string. */
function base64Fragments(secret: Buffer): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), secret]);
    const encoded = padded.toString('base64').replace(/=+$/, '');
    // Drop the characters that depend on the unknown prefix and the unknown suffix.
    const start = offset === 0 ? 0 : Math.ceil((offset * 4) / 3);
    const stableEnd = Math.floor(((offset + secret.length) * 4) / 3);
    const fragment = encoded.slice(start, stableEnd);
    if (fragment.length >= 6) out.push(fragment);
  }
  return out;
}

/** Every encoded form of a secret worth looking for. */
export function secretForms(secret: string): string[] {
  if (secret.length < 4) return [secret];
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>([secret, encodeURIComponent(secret), encodeURI(secret), JSON.stringify(secret).slice(1, -1)]);
  forms.add(encodeURIComponent(secret).replace(/%20/g, '+'));
  forms.add(bytes.toString('hex'));
  for (const f of base64Fragments(bytes)) {
    forms.add(f);
    forms.add(f.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

export interface Redactor {
  (text: string): string;
  /** True when the text holds a secret in any known form. */
  leaks(text: string): boolean;
}

/** A redactor for the given secrets (empty and very short ones are ignored). */
export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const forms = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4).flatMap(secretForms))];
  if (forms.length === 0) {
    const identity = ((text: string) => text) as Redactor;
    identity.leaks = () => false;
    return identity;
  }
  const pattern = new RegExp(forms.map(escapeRegExp).join('|'), 'gi');
  const redact = ((text: string) => (typeof text === 'string' ? text.replace(pattern, REDACTED) : text)) as Redactor;
  redact.leaks = (text: string) => {
    pattern.lastIndex = 0;
    const found = pattern.test(text);
    pattern.lastIndex = 0;
    return found;
  };
  return redact;
}

/** Redacts every string inside a JSON-like value. */
export function redactDeep(value: unknown, redact: (s: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[redact(k)] = redactDeep(v, redact, depth + 1);
  return out;
}
