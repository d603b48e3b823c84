// A short, stable name for a key, so people and audit records can tell keys
// apart ("which key made this call?", "did the rotation take?") without ever
// showing or storing the key: "sha256:" + the first 12 hex digits (48 bits) of
// its SHA-256. A one-way hash cannot be turned back into the key; for a real
// API key (well over 48 bits of entropy) guessing it from the fingerprint is
// hopeless. It is not meant to protect a short, guessable password.
import { createHash } from 'node:crypto';

export const FINGERPRINT_PREFIX = 'sha256:';

export function fingerprint(secret: string): string {
  return FINGERPRINT_PREFIX + createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 12);
}
