// Bearer tokens kept in the data dir: 256 random bits, hex, created on first
// use with mode 0600, rewritten only when a person rotates it. Used for the MCP endpoint (`token`)
// and, separately, for the control API (`control-token`).
import { randomBytes, createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, writeFileSync, chmodSync, renameSync, statSync } from 'node:fs';
import { AirlockError } from '../util/errors.ts';

const TOKEN_FORMAT = /^[0-9a-f]{64}$/;

export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** Reads the token file, creating it (0600) when it does not exist. */
export function ensureTokenFile(file: string): string {
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (!TOKEN_FORMAT.test(token))
      throw new AirlockError('config', `${file} does not hold a valid token`, { hint: 'delete it and restart: a new one is created' });
    if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = newToken();
  try {
    writeFileSync(file, token + '\n', { mode: 0o600, flag: 'wx' });
    return token;
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return ensureTokenFile(file);
    throw error;
  }
}

/** Replaces the token file with a new token (0600, atomically) and returns it. */
export function rotateTokenFile(file: string): string {
  const token = newToken();
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, token + '\n', { mode: 0o600 });
  renameSync(temp, file);
  return token;
}

/** Constant-time comparison (lengths are hidden by hashing both sides first). */
export function tokensEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
