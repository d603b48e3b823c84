// Small helpers the core and the renderer both need, with no dependency:
// telling a JSON object from the other values, and quoting a word for a
// POSIX shell in a command line shown to a person.

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `s` as one word of a POSIX shell command: as it is when it needs no quoting, else single-quoted. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** What a thrown value says: an Error's message, else the value as text (a throw can throw anything). */
export function messageOf(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
