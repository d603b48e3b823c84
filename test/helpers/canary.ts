// The red team's canary key and the encodings it is looked for in: a text
// holds it in clear, URL-encoded, as hex, or as base64 (standard or url-safe)
// at any alignment.
export const CANARY = 'sk_live_CANARY_7f3a9c1e5b2d4680';
const forms = [CANARY, encodeURIComponent(CANARY), Buffer.from(CANARY).toString('hex')];

/** True when text holds the canary in clear, URL-encoded, hex, or base64 at any alignment. */
export function holdsCanary(text: string): boolean {
  if (forms.some((f) => text.includes(f))) return true;
  for (let shift = 0; shift < 4; shift++) {
    for (const chunk of text.match(/[A-Za-z0-9+/_-]{20,}/g) ?? []) {
      const decoded = Buffer.from(chunk.slice(shift).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1');
      if (decoded.includes(CANARY)) return true;
    }
  }
  return false;
}
