// Operation details as text, and back, without the whole document in memory.
// A dereferenced document is a graph: one schema object is shared by every
// operation that uses it, and schemas refer to themselves. Written out per
// operation, each would carry the whole closure of its schemas (Microsoft
// Graph's `user` reaches most of the document) and a cycle would never end.
// So every object that is named (a component schema) or reached more than
// once is written once, as an entry of a table, and referred to by number
// (`{"$airlock:ref": 12}`) everywhere it appears; the rest is written inline.
//
// Read back, a value is rebuilt from its text and each reference becomes a
// property that reads its entry the first time it is used, then holds it:
// a walk over a schema reads only the part it walks. Entries read are kept
// (one object per entry, so shared stays shared and a cycle is the same
// object when it comes round), up to a bound after which the next read
// starts afresh; objects already handed out keep working. A named entry is
// entered in `refNames`, as the loader names dereferenced schemas.

/** The key of a reference to a table entry. */
export const REF_KEY = '$airlock:ref';

type Plain = null | boolean | number | string | Plain[] | { [key: string]: Plain };

/** Writes values that share objects as texts whose shared objects are entries of one table. */
export class SchemaTableWriter {
  private readonly shared: Set<object>;
  private readonly numbers = new Map<object, number>();
  private readonly refNames: WeakMap<object, string>;
  /** Entries numbered but not yet written (from `written` on). */
  private readonly queue: object[] = [];
  private written = 0;
  private readonly texts: string[] = [];
  private readonly names: (string | null)[] = [];

  /** `roots`: every value that will be encoded (the sharing is counted over all of them). */
  constructor(roots: Iterable<unknown>, refNames: WeakMap<object, string> = new WeakMap()) {
    this.refNames = refNames;
    this.shared = sharedObjects(roots, refNames);
  }

  /** The JSON text of `value`, every named or shared object in it a reference to its entry. */
  encode(value: unknown): string {
    const text = JSON.stringify(this.plain(value, undefined) ?? null);
    this.drain();
    return text;
  }

  /** The entries: text i is entry i's own object, name i its component name (null for one shared but unnamed). */
  table(): { texts: string[]; names: (string | null)[] } {
    this.drain();
    return { texts: this.texts, names: this.names };
  }

  private drain(): void {
    while (this.written < this.queue.length) {
      const object = this.queue[this.written++]!;
      const n = this.numbers.get(object)!;
      this.texts[n] = JSON.stringify(this.plain(object, object));
    }
  }

  private ref(object: object): { [REF_KEY]: number } {
    let n = this.numbers.get(object);
    if (n === undefined) {
      n = this.names.length;
      this.numbers.set(object, n);
      this.names.push(this.refNames.get(object) ?? null);
      this.texts.push('');
      this.queue.push(object);
    }
    return { [REF_KEY]: n };
  }

  /** JSON's view of a value (what JSON.stringify keeps), with shared objects as references; `own` is written in full. */
  private plain(value: unknown, own: object | undefined): Plain | undefined {
    if (value === null || typeof value !== 'object') {
      if (typeof value === 'number') return Number.isFinite(value) ? value : null;
      return typeof value === 'string' || typeof value === 'boolean' ? value : undefined;
    }
    if (value !== own && this.shared.has(value)) return this.ref(value);
    const json = (value as { toJSON?: unknown }).toJSON;
    if (typeof json === 'function') return this.plain((value as { toJSON(): unknown }).toJSON(), undefined);
    if (Array.isArray(value)) return value.map((item) => this.plain(item, undefined) ?? null);
    const out: { [key: string]: Plain } = {};
    for (const key of Object.keys(value)) {
      const item = this.plain((value as Record<string, unknown>)[key], undefined);
      if (item !== undefined) out[key] = item;
    }
    return out;
  }
}

/**
 * The objects to write as entries: named ones, ones reached more than once (every object on a cycle is), and any
 * object with a key that reads as a reference (so an inline object never looks like one).
 */
function sharedObjects(roots: Iterable<unknown>, refNames: WeakMap<object, string>): Set<object> {
  const seen = new Set<object>();
  const shared = new Set<object>();
  const stack: unknown[] = [...roots];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if (seen.has(value)) {
      shared.add(value);
      continue;
    }
    seen.add(value);
    if (refNames.has(value) || Object.hasOwn(value, REF_KEY)) shared.add(value);
    for (const child of Array.isArray(value) ? value : Object.values(value)) if (child !== null && typeof child === 'object') stack.push(child);
  }
  return shared;
}

export interface SchemaTableSource {
  /** Entry i's text. */
  entry(i: number): string;
  /** How many entries there are. */
  readonly size: number;
  /** Entry i's component name, if it has one. */
  name(i: number): string | null;
}

/** Entries kept before the next read starts afresh. */
const KEPT_ENTRIES = 4096;

/** Reads texts written by a SchemaTableWriter, each reference read when first used. */
export class SchemaTableReader {
  private kept = new Map<number, object>();
  private readonly source: SchemaTableSource;
  /** Where named entries are entered, as the loader enters dereferenced schemas. */
  readonly refNames: WeakMap<object, string>;
  private readonly keep: number;

  constructor(source: SchemaTableSource, refNames: WeakMap<object, string>, keep = KEPT_ENTRIES) {
    this.source = source;
    this.refNames = refNames;
    this.keep = keep;
  }

  /** The value of a text `encode` wrote. */
  decode(text: string): unknown {
    if (this.kept.size > this.keep) this.kept = new Map();
    return this.hydrate(JSON.parse(text) as unknown);
  }

  /** Entry i's object (the same object while it is kept). */
  resolve(i: number): object {
    const kept = this.kept.get(i);
    if (kept) return kept;
    if (!Number.isInteger(i) || i < 0 || i >= this.source.size) throw new RangeError(`no schema entry ${i}`);
    const value = JSON.parse(this.source.entry(i)) as unknown;
    if (value === null || typeof value !== 'object') throw new TypeError(`schema entry ${i} is not an object`);
    // Its own keys are its own, even one that reads as a reference.
    this.hydrateChildren(value);
    this.kept.set(i, value);
    const name = this.source.name(i);
    if (name !== null) this.refNames.set(value, name);
    return value;
  }

  /** A parsed value with its references made into properties that read them on first use. */
  private hydrate(value: unknown): unknown {
    if (value === null || typeof value !== 'object') return value;
    const ref = referenceOf(value);
    if (ref !== undefined) return this.resolve(ref);
    this.hydrateChildren(value);
    return value;
  }

  private hydrateChildren(value: object): void {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      if (child === null || typeof child !== 'object') continue;
      const ref = referenceOf(child);
      if (ref === undefined) this.hydrateChildren(child);
      else this.lazy(record, key, ref);
    }
  }

  private lazy(container: Record<string, unknown>, key: string, ref: number): void {
    const settle = (value: unknown) => Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true });
    Object.defineProperty(container, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        const value = this.resolve(ref);
        settle(value);
        return value;
      },
      set: settle,
    });
  }
}

function referenceOf(value: object): number | undefined {
  if (Array.isArray(value)) return undefined;
  const ref = (value as Record<string, unknown>)[REF_KEY];
  return typeof ref === 'number' && Object.keys(value).length === 1 ? ref : undefined;
}
