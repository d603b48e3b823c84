// A file read and parsed once, then again only when it changed: its inode,
// size or modification time differ (a file written atomically is a new
// inode each time). For small settings files read on every call — the MCP
// servers' entries and reviews — so a call costs a stat, not a parse.
import { statSync } from 'node:fs';

export class FileCache<T> {
  private readonly file: string;
  private readonly parse: () => T;
  private key: string | undefined;
  private value: T | undefined;

  /** `parse` reads and parses the file (it may throw; nothing is cached then). */
  constructor(file: string, parse: () => T) {
    this.file = file;
    this.parse = parse;
  }

  get(): T {
    let key: string;
    try {
      const s = statSync(this.file, { bigint: true });
      key = `${s.ino}:${s.size}:${s.mtimeNs}`;
    } catch {
      key = 'absent';
    }
    if (key !== this.key || this.value === undefined) {
      this.value = this.parse();
      this.key = key;
    }
    return this.value;
  }
}
