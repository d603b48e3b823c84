// The audit chain's arithmetic, kept apart so the rules are written once and
// are easy to re-implement elsewhere (an external verifier of a JSONL export):
//
//   body  = canonical JSON of the record without prevHash/hash: object keys
//           sorted by UTF-16 code unit, no whitespace, absent fields omitted
//   hash  = hex(sha256(prevHash + "\n" + body))
//
// The first record links to GENESIS_HASH; after a prune, to the hash of the
// last pruned record (the anchor). seq is part of the body, so renumbering
// changes the hash too.
import { createHash } from 'node:crypto';

/** What record 1 of every audit store links to. */
export const GENESIS_HASH = sha256Hex('airlock audit chain v1');

export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Deterministic JSON: sorted keys, no whitespace; undefined fields are left out, non-finite numbers are refused. */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`cannot serialise the number ${value}`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
    }
    default:
      throw new TypeError(`cannot serialise a ${typeof value}`);
  }
}

export function chainHash(prevHash: string, body: string): string {
  return sha256Hex(`${prevHash}\n${body}`);
}
