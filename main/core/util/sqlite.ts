// Small helpers shared by the SQLite-backed stores (audit log, demo API).
import type { DatabaseSync } from 'node:sqlite';

/** Runs `body` in a write transaction taken up front (BEGIN IMMEDIATE); rolls back if it throws. */
export function transaction(db: DatabaseSync, body: () => void): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    body();
    db.exec('COMMIT');
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
