// Opening the audit database: the file (0600), WAL with synchronous=NORMAL
// (the writer flushes the WAL itself where a record must reach the disk:
// auditWriter.ts), the schema and its version.
import { DatabaseSync } from 'node:sqlite';
import { transaction } from '../util/sqlite.ts';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { AirlockError, errorMessage } from '../util/errors.ts';
import { GENESIS_HASH } from './chain.ts';

export const SCHEMA_VERSION = 1;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS chain (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  head_seq INTEGER NOT NULL,
  head_hash TEXT NOT NULL,
  anchor_seq INTEGER NOT NULL,
  anchor_hash TEXT NOT NULL,
  pruned_total INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  run_id TEXT,
  client_name TEXT,
  tool TEXT,
  outcome TEXT NOT NULL,
  search TEXT NOT NULL,
  body TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS records_kind ON records (kind, seq);
CREATE INDEX IF NOT EXISTS records_at ON records (at_ms);
CREATE INDEX IF NOT EXISTS records_run ON records (run_id);
CREATE INDEX IF NOT EXISTS records_client ON records (client_name, seq);
CREATE INDEX IF NOT EXISTS records_tool ON records (tool, seq);
CREATE INDEX IF NOT EXISTS records_outcome ON records (outcome, seq);
CREATE INDEX IF NOT EXISTS records_api_profile ON records (json_extract(body, '$.profile'), at_ms) WHERE kind = 'api';
`;

/** Opens (creating when new) the audit database, or throws an AirlockError that says what to do. */
export function openDatabase(file: string): DatabaseSync {
  let db: DatabaseSync | undefined;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Create the file ourselves so it is never world-readable, even for a moment; SQLite copies its mode to -wal and -shm.
    closeSync(openSync(file, 'a', 0o600));
    if (process.platform !== 'win32') chmodSync(file, 0o600);
    const opened = new DatabaseSync(file);
    db = opened;
    opened.exec(`PRAGMA busy_timeout = 5000; PRAGMA secure_delete = ON; PRAGMA synchronous = NORMAL;`);
    const mode = (opened.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode: string }).journal_mode;
    if (mode !== 'wal') throw new Error(`the file system refused WAL mode (journal_mode is ${mode})`);
    transaction(opened, () => {
      opened.exec(SCHEMA);
      const version = opened.prepare("SELECT value FROM meta WHERE key = 'schemaVersion'").get() as { value: string } | undefined;
      if (version && Number(version.value) > SCHEMA_VERSION) throw new Error(`it was written by a newer Airlock (schema ${version.value})`);
      if (!version) opened.prepare("INSERT INTO meta (key, value) VALUES ('schemaVersion', ?)").run(String(SCHEMA_VERSION));
      opened
        .prepare('INSERT OR IGNORE INTO chain (id, head_seq, head_hash, anchor_seq, anchor_hash, pruned_total) VALUES (1, 0, ?, 0, ?, 0)')
        .run(GENESIS_HASH, GENESIS_HASH);
    });
    return opened;
  } catch (error) {
    if (db?.isOpen) db.close();
    throw new AirlockError('config', `cannot open the audit log ${file}: ${errorMessage(error)}`, {
      hint: 'move that file aside to start a new audit log (the old one stays readable with sqlite3)',
      cause: error,
    });
  }
}
