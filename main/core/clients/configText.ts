// Minimal edits of a client's configuration file in its own format: one
// server entry set or removed, every other byte of the file kept. JSON and
// JSONC go through Microsoft's jsonc-parser (comments, trailing commas and
// formatting survive); TOML is edited as text — our one table removed and
// re-added at the end — and checked with smol-toml before and after, so a
// file that does not parse is never overwritten and the rest of it is
// provably unchanged.
import { applyEdits, format, modify, parse as parseJsonc, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { isDeepStrictEqual } from 'node:util';
import { AirlockError } from '../util/errors.ts';

export type ConfigFormat = 'json' | 'jsonc' | 'toml';

export class BrokenConfigError extends AirlockError {
  readonly file: string;
  /** Where the file breaks, 1-based. */
  readonly at: { line: number; column: number };
  constructor(file: string, line: number, column: number, detail: string) {
    super('config', `${file} does not parse (line ${line}, column ${column}: ${detail}); it was left untouched`, {
      hint: 'fix the file (or move it aside), then run the command again',
    });
    this.file = file;
    this.at = { line, column };
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/** The indentation a JSON file already uses (two spaces when it has none yet). */
function indentOf(text: string): { insertSpaces: boolean; tabSize: number } {
  const m = /\n([ \t]+)["}\]]/.exec(text);
  if (!m) return { insertSpaces: true, tabSize: 2 };
  return m[1]!.startsWith('\t') ? { insertSpaces: false, tabSize: 1 } : { insertSpaces: true, tabSize: m[1]!.length };
}

/** The value a file holds (parsed leniently for JSONC); throws BrokenConfigError for one that does not parse. */
export function readConfig(text: string, format: ConfigFormat, file: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  if (format === 'toml') {
    try {
      return parseToml(text) as Record<string, unknown>;
    } catch (error) {
      const e = error as { line?: number; column?: number; message: string };
      throw new BrokenConfigError(file, e.line ?? 0, e.column ?? 0, e.message.split('\n')[0]!);
    }
  }
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: format === 'jsonc', disallowComments: format === 'json' });
  const first = errors[0];
  if (first) {
    const { line, column } = lineColumn(text, first.offset);
    throw new BrokenConfigError(file, line, column, printParseErrorCode(first.error));
  }
  if (!tree || tree.type !== 'object') throw new BrokenConfigError(file, 1, 1, 'the file is not a JSON object');
  return parseJsonc(text, [], { allowTrailingComma: format === 'jsonc' }) as Record<string, unknown>;
}

/** The entry under `root` named `name`, if the file has one. */
export function readEntry(config: Record<string, unknown>, root: readonly string[], name: string): unknown {
  let node: unknown = config;
  for (const key of [...root, name]) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * The file's text with `root.name` set to `entry` (or removed when `entry`
 * is undefined). Throws BrokenConfigError when the file does not parse.
 */
export function editConfig(
  text: string,
  format_: ConfigFormat,
  file: string,
  root: readonly string[],
  name: string,
  entry: Record<string, unknown> | undefined,
): string {
  const before = readConfig(text, format_, file);
  if (format_ === 'toml') return editToml(text, before, root, name, entry);
  const source = text.trim() === '' ? '{}\n' : text;
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  // The edit is made unformatted, then only the text it inserted is formatted: a sibling written on one line stays as it was.
  const options = { ...indentOf(source), eol };
  let out = source;
  for (const found of modify(source, [...root, name], entry, {})) {
    // Removing the first of several entries, jsonc-parser also takes the line break and indent after the `{`: they stay.
    let edit = found;
    if (!edit.content && out[edit.offset - 1] === '{' && /^\s*"/.test(out.slice(edit.offset + edit.length))) {
      const kept = /^\s*/.exec(out.slice(edit.offset, edit.offset + edit.length))![0].length;
      edit = { offset: edit.offset + kept, length: edit.length - kept, content: '' };
    }
    const lineStart = out.lastIndexOf('\n', edit.offset - 1) + 1;
    if (edit.content && out.slice(lineStart, edit.offset).trim() === '{') {
      // Into an empty object: nothing else on the line to keep, so let the library lay out the whole line.
      out = applyEdits(out, modify(out, [...root, name], entry, { formattingOptions: options }));
      break;
    }
    out = applyEdits(out, [edit]);
    if (edit.content) out = applyEdits(out, format(out, { offset: edit.offset, length: edit.content.length }, options));
  }
  // Removing the last entry leaves an empty map, kept: removing it could take a comment of the person's with it.
  if (!out.endsWith(eol)) out += eol;
  readConfig(out, format_, file); // never write what we could not read back
  return out;
}

/** TOML: our table (and its sub-tables) removed where it was, then appended; the rest of the text is kept byte for byte. */
function editToml(text: string, parsed: Record<string, unknown>, root: readonly string[], name: string, entry: Record<string, unknown> | undefined): string {
  const before = JSON.parse(JSON.stringify(parsed)) as Record<string, unknown>;
  const path = [...root, name];
  const lines = text.split(/(?<=\n)/);
  const kept: string[] = [];
  let inside = false;
  for (const line of lines) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line.replace(/\r?\n$/, ''));
    if (header) inside = isOurs(header[1]!, path);
    if (!inside) kept.push(line);
  }
  let out = kept.join('');
  if (entry) {
    const table = stringifyToml(nest(path, entry)).trim();
    if (out !== '' && !out.endsWith('\n')) out += '\n';
    if (out.trim() !== '' && !out.endsWith('\n\n')) out += '\n';
    out += table + '\n';
  }
  // Everything but our entry must read back exactly as before.
  const after = JSON.parse(JSON.stringify(parseToml(out))) as Record<string, unknown>;
  if (!isDeepStrictEqual(withoutEntry(after, path), withoutEntry(before, path))) {
    throw new Error(`editing ${path.join('.')} would change other settings of the file (it defines that table inline?); edit it by hand`);
  }
  if (entry && !isDeepStrictEqual(readEntry(after, root, name), JSON.parse(JSON.stringify(entry)))) {
    throw new Error(`the table ${path.join('.')} did not read back as written`);
  }
  return out;
}

/** Whether a TOML table header (`mcp_servers.airlock`, `mcp_servers."airlock".env`) is our table or under it. */
function isOurs(header: string, path: readonly string[]): boolean {
  const keys = header.split('.').map((k) => k.trim().replace(/^"(.*)"$|^'(.*)'$/, '$1$2'));
  return path.every((key, i) => keys[i] === key);
}

function nest(path: readonly string[], value: Record<string, unknown>): Record<string, unknown> {
  return path.reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), value);
}

function withoutEntry(config: Record<string, unknown>, path: readonly string[]): unknown {
  const copy = structuredClone(config);
  let node: Record<string, unknown> | undefined = copy;
  for (const key of path.slice(0, -1)) node = node?.[key] as Record<string, unknown> | undefined;
  if (node) delete node[path.at(-1)!];
  // An emptied parent table reads the same as none.
  const parent = path.slice(0, -1);
  if (parent.length === 1 && copy[parent[0]!] && Object.keys(copy[parent[0]!] as object).length === 0) delete copy[parent[0]!];
  return copy;
}
