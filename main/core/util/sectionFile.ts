// A file of named sections, each checksummed, written once and read in parts:
// the prepared store of an API (search/preparedApi.ts) keeps what a served
// API needs at once (its operations' names, its search index) beside what is
// read only when asked (one operation's parameters and schemas), so memory
// holds the first and the disk the second.
//
// Layout: the sections' bytes, one after another; then the header as JSON
// (the caller's fields, and where each section is: offset, length, CRC-32);
// then the header's length (4 bytes, little-endian) and a magic number
// (4 bytes). The header is last so that sections stream to disk as they are
// made and nothing is held to be written at the end. A table is a section of
// many small entries (one per operation) plus an index section of
// (offset, length, CRC-32) triples, so one entry is read with one pread.
//
// The file is written to a temp file beside the target and renamed over it,
// never in place: a reader with the old file open keeps reading the old one.
// Every read is checked against its CRC-32; a mismatch is a DamagedFile
// error, never data. No fsync: a torn file fails its checks and is rebuilt.
import { closeSync, openSync, readSync, fstatSync } from 'node:fs';
import { open, rename, rm, mkdir, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { dirname, join } from 'node:path';
import { tempPrefix } from './atomicWrite.ts';

const MAGIC = 0x41_4c_53_46; // "ALSF"
const TRAILER = 8;
/** A header over this is no header of ours. */
const MAX_HEADER = 16 * 1024 * 1024;
/** Bytes gathered before a write. */
const WRITE_BATCH = 1024 * 1024;

/** Where a section is in the file. */
export interface SectionPlace {
  offset: number;
  length: number;
  crc: number;
}

export interface SectionFileHeader {
  sections: Record<string, SectionPlace>;
  [field: string]: unknown;
}

/** A section file that fails its checks (truncated, foreign, altered): never read as data. */
export class DamagedFile extends Error {
  constructor(file: string, what: string) {
    super(`${file}: ${what}`);
    this.name = 'DamagedFile';
  }
}

export class SectionFileWriter {
  private readonly sections: Record<string, SectionPlace> = {};
  private position = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private done = false;
  private readonly file: string;
  private readonly tmp: string;
  private readonly handle: FileHandle;

  private constructor(file: string, tmp: string, handle: FileHandle) {
    this.file = file;
    this.tmp = tmp;
    this.handle = handle;
  }

  /** A writer for `file` (mode 0600): nothing is at `file` until `commit`. */
  static async create(file: string): Promise<SectionFileWriter> {
    const dir = dirname(file);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `${tempPrefix(file)}${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    const handle = await open(tmp, 'wx', 0o600);
    if (process.platform !== 'win32') await handle.chmod(0o600);
    return new SectionFileWriter(file, tmp, handle);
  }

  /** One section: a text (UTF-8) or bytes (of any typed array, in this machine's byte order). */
  async section(name: string, data: string | ArrayBufferView): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    this.claim(name);
    this.sections[name] = { offset: this.position, length: bytes.length, crc: crc32(bytes) };
    await this.push(bytes);
  }

  /**
   * A table: each entry (a text) one after another in section `name`, and their places, as (offset, length, CRC-32)
   * triples relative to the section, in section `name.index`. Entries are pulled one at a time and written in batches.
   * Resolves to how many entries were written.
   */
  async table(name: string, entries: Iterable<string>): Promise<number> {
    this.claim(name);
    this.claim(`${name}.index`);
    const start = this.position;
    const places: number[] = [];
    let crc = 0;
    for (const entry of entries) {
      const bytes = Buffer.from(entry, 'utf8');
      places.push(this.position - start, bytes.length, crc32(bytes));
      crc = crc32(bytes, crc);
      await this.push(bytes);
    }
    this.sections[name] = { offset: start, length: this.position - start, crc };
    await this.section(`${name}.index`, new Uint8Array(new Uint32Array(places).buffer));
    return places.length / 3;
  }

  /** Writes the header and puts the file in place (over any earlier one). */
  async commit(fields: Record<string, unknown>): Promise<void> {
    const header = Buffer.from(JSON.stringify({ ...fields, sections: this.sections } satisfies SectionFileHeader), 'utf8');
    const trailer = Buffer.alloc(TRAILER);
    trailer.writeUInt32LE(header.length, 0);
    trailer.writeUInt32LE(MAGIC, 4);
    await this.push(header);
    await this.push(trailer);
    await this.flush();
    this.done = true;
    await this.handle.close();
    await rename(this.tmp, this.file);
  }

  /** Drops what was written (nothing is put in place). */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.handle.close().catch(() => undefined);
    await rm(this.tmp, { force: true }).catch(() => undefined);
  }

  private claim(name: string): void {
    if (this.done) throw new Error('the section file is already written');
    if (Object.hasOwn(this.sections, name)) throw new Error(`section ${name} is written twice`);
  }

  private async push(bytes: Buffer): Promise<void> {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    this.position += bytes.length;
    if (this.pendingBytes >= WRITE_BATCH) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    await this.handle.writev(batch);
  }
}

/** A table's places, read once: entry i is at (offset, length, crc) = index[3i], index[3i+1], index[3i+2]. */
export interface TableIndex {
  readonly base: number;
  readonly places: Uint32Array;
  readonly size: number;
}

/**
 * A section file opened for reading. Sections are read whole (async, checked); a table's entries one at a time
 * (sync: one pread of a few kilobytes from the page cache, checked). Holds the file open until `close`: a file
 * replaced or removed meanwhile is still read as it was.
 */
export class SectionFileReader {
  private closed = false;
  readonly file: string;
  readonly header: SectionFileHeader;
  private readonly fd: number;
  /** Bytes of sections: any place beyond is damage. */
  private readonly bodyLength: number;

  private constructor(file: string, fd: number, header: SectionFileHeader, bodyLength: number) {
    this.file = file;
    this.fd = fd;
    this.header = header;
    this.bodyLength = bodyLength;
  }

  /** Opens a section file; DamagedFile when it is not one (too short, no magic, a header that does not parse or fit). */
  static open(file: string): SectionFileReader {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size < TRAILER) throw new DamagedFile(file, 'too short');
      const trailer = readExactly(fd, TRAILER, size - TRAILER);
      if (trailer.readUInt32LE(4) !== MAGIC) throw new DamagedFile(file, 'not a section file');
      const headerLength = trailer.readUInt32LE(0);
      if (headerLength > MAX_HEADER || headerLength > size - TRAILER) throw new DamagedFile(file, 'header out of bounds');
      const bodyLength = size - TRAILER - headerLength;
      let header: SectionFileHeader;
      try {
        header = JSON.parse(readExactly(fd, headerLength, bodyLength).toString('utf8')) as SectionFileHeader;
      } catch {
        throw new DamagedFile(file, 'header is not JSON');
      }
      if (!header || typeof header !== 'object' || !header.sections || typeof header.sections !== 'object')
        throw new DamagedFile(file, 'header of an unexpected shape');
      for (const [name, place] of Object.entries(header.sections)) {
        if (!isPlace(place) || place.offset + place.length > bodyLength) throw new DamagedFile(file, `section ${name} out of bounds`);
      }
      return new SectionFileReader(file, fd, header, bodyLength);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  has(name: string): boolean {
    return Object.hasOwn(this.header.sections, name);
  }

  /** A whole section's bytes, checked. */
  bytes(name: string): Buffer {
    const place = this.place(name);
    const bytes = readExactly(this.fd, place.length, place.offset, this.file);
    if (crc32(bytes) !== place.crc) throw new DamagedFile(this.file, `section ${name} fails its checksum`);
    return bytes;
  }

  /** A whole section as text. */
  text(name: string): string {
    return this.bytes(name).toString('utf8');
  }

  /** A table's index (its places), checked against the table's bounds. */
  tableIndex(name: string): TableIndex {
    const base = this.place(name);
    const raw = this.bytes(`${name}.index`);
    if (raw.length % 12 !== 0) throw new DamagedFile(this.file, `index of ${name} of an unexpected size`);
    const places = new Uint32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
    for (let i = 0; i < places.length; i += 3) {
      if (places[i]! + places[i + 1]! > base.length) throw new DamagedFile(this.file, `entry ${i / 3} of ${name} out of bounds`);
    }
    return { base: base.offset, places, size: places.length / 3 };
  }

  /** Entry `i` of a table, as text, checked. */
  entry(index: TableIndex, i: number, name = 'table'): string {
    if (this.closed) throw new Error(`${this.file} is closed`);
    if (!Number.isInteger(i) || i < 0 || i >= index.size) throw new RangeError(`no entry ${i} in ${name}`);
    const offset = index.places[3 * i]!;
    const length = index.places[3 * i + 1]!;
    const bytes = readExactly(this.fd, length, index.base + offset, this.file);
    if (crc32(bytes) !== index.places[3 * i + 2]) throw new DamagedFile(this.file, `entry ${i} of ${name} fails its checksum`);
    return bytes.toString('utf8');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  private place(name: string): SectionPlace {
    const place = this.header.sections[name];
    if (!place || place.offset + place.length > this.bodyLength) throw new DamagedFile(this.file, `no section ${name}`);
    return place;
  }
}

function isPlace(value: unknown): value is SectionPlace {
  const p = value as SectionPlace;
  return !!p && typeof p === 'object' && [p.offset, p.length, p.crc].every((n) => Number.isSafeInteger(n) && n >= 0);
}

function readExactly(fd: number, length: number, position: number, file = 'file'): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, buffer, read, length - read, position + read);
    if (n === 0) throw new DamagedFile(file, 'ends early');
    read += n;
  }
  return buffer;
}
