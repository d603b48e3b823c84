// The demo API's storage: events in one SQLite file (WAL) that survives
// restarts. The sample events are written once, in the transaction that
// creates the database, and never again (deleting them all leaves an empty
// calendar until `reset`). Lists use keyset cursors, so paging stays exact
// while events are added or removed, and every filter also applies to `total`.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { transaction } from '../util/sqlite.ts';
import { randomInt } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { AirlockError, errorMessage } from '../util/errors.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import {
  CATEGORIES,
  CATEGORY_LABELS,
  DEFAULT_LIMIT,
  DemoApiError,
  SORTS,
  formatDateTime,
  parseDateTime,
  parseEventInput,
  parseListQuery,
  patchEventInput,
  type CategoryCount,
  type DemoEvent,
  type EventInput,
  type EventList,
  type EventSort,
  type ListQuery,
} from './demoModel.ts';
import { seedEvents } from './demoSeed.ts';

export interface DemoStoreOptions {
  /** The SQLite file; its directory is created if needed. */
  file: string;
  now?: () => Date;
  logger?: Logger;
}

export interface DemoStore {
  /** Throws a 400 DemoApiError for an invalid query or cursor. */
  list(query?: ListQuery): EventList;
  get(id: string): DemoEvent | undefined;
  /** Throws a 422 DemoApiError for an invalid body. */
  create(body: unknown): DemoEvent;
  /** undefined when there is no such event; throws a 422 DemoApiError for an invalid body. */
  replace(id: string, body: unknown): DemoEvent | undefined;
  /** JSON merge patch; undefined when there is no such event; throws a 422 DemoApiError for an invalid result. */
  patch(id: string, patch: unknown): DemoEvent | undefined;
  delete(id: string): boolean;
  categories(): CategoryCount[];
  /** Deletes every event and writes the sample events again, dated from now. */
  reset(): void;
  close(): void;
}

interface EventRow {
  id: string;
  title: string;
  description: string;
  category: string;
  city: string;
  venue: string;
  start_ms: number;
  end_ms: number;
  price: number;
  currency: string;
  status: string;
  tags: string;
  created_ms: number;
  updated_ms: number;
}

const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  description TEXT NOT NULL,
  category TEXT NOT NULL,
  city TEXT NOT NULL,
  venue TEXT NOT NULL,
  start_ms INTEGER NOT NULL,
  end_ms INTEGER NOT NULL,
  price REAL NOT NULL,
  currency TEXT NOT NULL,
  status TEXT NOT NULL,
  tags TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS events_start ON events (start_ms, id);
`;

/** Sort key column and direction for each `sort` value; ties are broken by id in the same direction. */
const ORDER: Record<EventSort, { column: keyof EventRow; desc: boolean }> = {
  'start.asc': { column: 'start_ms', desc: false },
  'start.desc': { column: 'start_ms', desc: true },
  'createdAt.asc': { column: 'created_ms', desc: false },
  'createdAt.desc': { column: 'created_ms', desc: true },
  'price.asc': { column: 'price', desc: false },
  'price.desc': { column: 'price', desc: true },
  'title.asc': { column: 'title', desc: false },
};

const cursorSchema = z.object({ s: z.enum(SORTS), v: z.union([z.number(), z.string()]), id: z.string() });

export function openDemoStore(options: DemoStoreOptions): DemoStore {
  const now = options.now ?? (() => new Date());
  const logger = options.logger ?? silentLogger;
  const db = openDatabase(options.file, now, logger);

  // A list's SQL depends only on which filters it has: each text is compiled once (the set is small; bounded anyway).
  const statements = new Map<string, StatementSync>();
  const statement = (sql: string): StatementSync => {
    let prepared = statements.get(sql);
    if (!prepared) {
      if (statements.size >= 128) statements.clear();
      prepared = db.prepare(sql);
      statements.set(sql, prepared);
    }
    return prepared;
  };
  const selectOne = db.prepare('SELECT * FROM events WHERE id = ?');
  const read = (id: string): DemoEvent | undefined => {
    const row = selectOne.get(id) as EventRow | undefined;
    return row ? toEvent(row) : undefined;
  };

  const write = (id: string, input: EventInput, createdMs: number, updatedMs: number): void => {
    statement(
      `INSERT INTO events (id, title, description, category, city, venue, start_ms, end_ms, price, currency, status, tags, created_ms, updated_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, description = excluded.description, category = excluded.category,
         city = excluded.city, venue = excluded.venue, start_ms = excluded.start_ms, end_ms = excluded.end_ms, price = excluded.price,
         currency = excluded.currency, status = excluded.status, tags = excluded.tags, updated_ms = excluded.updated_ms`,
    ).run(...rowValues(id, input, createdMs, updatedMs));
  };

  return {
    list(query = {}) {
      const q = parseListQuery(query);
      const sort = q.sort ?? 'start.asc';
      const limit = q.limit ?? DEFAULT_LIMIT;
      const { column, desc } = ORDER[sort];
      const where: string[] = [];
      const params: SQLInputValue[] = [];
      for (const term of (q.q ?? '').split(/\s+/).map(fold).filter(Boolean)) {
        where.push("demo_fold(title || ' ' || description || ' ' || city || ' ' || venue) LIKE ? ESCAPE '\\'");
        params.push(`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      }
      if (q.city?.length) {
        where.push(`demo_fold(city) IN (${q.city.map(() => '?').join(', ')})`);
        params.push(...q.city.map(fold));
      }
      if (q.category?.length) {
        where.push(`category IN (${q.category.map(() => '?').join(', ')})`);
        params.push(...q.category);
      }
      if (q.status) {
        where.push('status = ?');
        params.push(q.status);
      }
      if (q.from !== undefined) {
        where.push('start_ms >= ?');
        params.push(msOf(q.from));
      }
      if (q.to !== undefined) {
        where.push('start_ms <= ?');
        params.push(msOf(q.to));
      }
      if (q.free !== undefined) where.push(q.free ? 'price = 0' : 'price > 0');

      const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      const { total } = statement(`SELECT COUNT(*) AS total FROM events ${filter}`).get(...params) as { total: number };

      const pageWhere = [...where];
      const pageParams = [...params];
      if (q.after !== undefined) {
        const cursor = decodeCursor(q.after, sort);
        const op = desc ? '<' : '>';
        pageWhere.push(`(${column} ${op} ? OR (${column} = ? AND id ${op} ?))`);
        pageParams.push(cursor.v, cursor.v, cursor.id);
      }
      const dir = desc ? 'DESC' : 'ASC';
      const rows = statement(
        `SELECT * FROM events ${pageWhere.length > 0 ? `WHERE ${pageWhere.join(' AND ')}` : ''} ORDER BY ${column} ${dir}, id ${dir} LIMIT ?`,
      ).all(...pageParams, limit + 1) as unknown as EventRow[];
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const after = rows.length > limit && last ? encodeCursor({ s: sort, v: last[column] as number | string, id: last.id }) : null;
      return { data: page.map(toEvent), pagination: { total, limit, after } };
    },

    get: read,

    create(body) {
      const input = parseEventInput(body);
      let id = newId();
      while (read(id)) id = newId();
      const ms = now().getTime();
      write(id, input, ms, ms);
      return read(id)!;
    },

    replace(id, body) {
      const current = selectOne.get(id) as EventRow | undefined;
      if (!current) return undefined;
      const input = parseEventInput(body);
      write(id, input, current.created_ms, now().getTime());
      return read(id);
    },

    patch(id, patch) {
      const current = read(id);
      if (!current) return undefined;
      const input = patchEventInput(toInput(current), patch);
      write(id, input, Date.parse(current.createdAt), now().getTime());
      return read(id);
    },

    delete(id) {
      return Number(statement('DELETE FROM events WHERE id = ?').run(id).changes) > 0;
    },

    categories() {
      const rows = db
        .prepare('SELECT category, COUNT(*) AS eventCount, SUM(start_ms > ?) AS upcomingCount FROM events GROUP BY category')
        .all(now().getTime()) as { category: string; eventCount: number; upcomingCount: number }[];
      const counts = new Map(rows.map((r) => [r.category, r] as const));
      return CATEGORIES.map((id) => ({
        id,
        label: CATEGORY_LABELS[id],
        eventCount: counts.get(id)?.eventCount ?? 0,
        upcomingCount: counts.get(id)?.upcomingCount ?? 0,
      }));
    },

    reset() {
      transaction(db, () => {
        db.exec('DELETE FROM events');
        seed(db, now());
        db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('seededAt', ?)").run(formatDateTime(now().getTime()));
      });
      logger.info('demo events reset to the sample events');
    },

    close() {
      if (db.isOpen) db.close();
    },
  };
}

/** Opens (creating and seeding when new) the database, or throws an AirlockError that says what to do. */
function openDatabase(file: string, now: () => Date, logger: Logger): DatabaseSync {
  let db: DatabaseSync | undefined;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const opened = new DatabaseSync(file);
    db = opened;
    opened.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    // Case- and accent-insensitive text, for search and city matching.
    opened.function('demo_fold', { deterministic: true }, (value) => fold(String(value ?? '')));
    transaction(opened, () => {
      opened.exec(SCHEMA);
      const version = opened.prepare("SELECT value FROM meta WHERE key = 'schemaVersion'").get() as { value: string } | undefined;
      if (version && Number(version.value) > SCHEMA_VERSION) {
        throw new Error(`it was written by a newer Airlock (schema ${version.value})`);
      }
      if (!opened.prepare("SELECT value FROM meta WHERE key = 'seededAt'").get()) {
        seed(opened, now());
        opened
          .prepare("INSERT INTO meta (key, value) VALUES ('seededAt', ?), ('schemaVersion', ?)")
          .run(formatDateTime(now().getTime()), String(SCHEMA_VERSION));
        logger.info(`created the demo events database ${file} with sample events`);
      }
    });
    return opened;
  } catch (error) {
    if (db?.isOpen) db.close();
    throw new AirlockError('config', `cannot open the demo events database ${file}: ${errorMessage(error)}`, {
      hint: 'delete that file to start again with fresh sample events',
      cause: error,
    });
  }
}

function seed(db: DatabaseSync, at: Date): void {
  const insert = db.prepare(
    `INSERT INTO events (id, title, description, category, city, venue, start_ms, end_ms, price, currency, status, tags, created_ms, updated_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const events = seedEvents(at);
  // Staggered creation times, so `createdAt` sorting has something to show.
  events.forEach((input, i) => {
    const created = at.getTime() - (events.length - i) * 60_000;
    insert.run(...rowValues(newId(), input, created, created));
  });
}

function rowValues(id: string, input: EventInput, createdMs: number, updatedMs: number): SQLInputValue[] {
  return [
    id,
    input.title,
    input.description,
    input.category,
    input.city,
    input.venue,
    msOf(input.start),
    msOf(input.end),
    input.price,
    input.currency,
    input.status,
    JSON.stringify(input.tags),
    createdMs,
    updatedMs,
  ];
}

function toEvent(row: EventRow): DemoEvent {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    category: row.category as DemoEvent['category'],
    city: row.city,
    venue: row.venue,
    start: formatDateTime(row.start_ms),
    end: formatDateTime(row.end_ms),
    price: row.price,
    currency: row.currency,
    free: row.price === 0,
    status: row.status as DemoEvent['status'],
    tags: JSON.parse(row.tags) as string[],
    createdAt: formatDateTime(row.created_ms),
    updatedAt: formatDateTime(row.updated_ms),
  };
}

function toInput(event: DemoEvent): EventInput {
  const { id: _id, free: _free, createdAt: _c, updatedAt: _u, ...input } = event;
  return input;
}

function msOf(dateTime: string): number {
  const parsed = parseDateTime(dateTime);
  if ('problem' in parsed) throw new Error(`unexpected unvalidated date-time ${dateTime}`);
  return parsed.ms;
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function newId(): string {
  let id = 'evt_';
  for (let i = 0; i < 10; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

/** Lower case, without diacritics: `Théâtre` → `theatre`. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function encodeCursor(cursor: z.infer<typeof cursorSchema>): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(after: string, sort: EventSort): z.infer<typeof cursorSchema> {
  let cursor: z.infer<typeof cursorSchema> | undefined;
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(after, 'base64url').toString('utf8')));
    if (parsed.success) cursor = parsed.data;
  } catch {
    cursor = undefined;
  }
  if (!cursor) {
    throw new DemoApiError(400, 'invalid_parameter', 'Invalid query parameter: after is not a cursor this API returned.', [
      { in: 'query', field: 'after', message: 'is not a cursor this API returned; pass pagination.after from the previous page' },
    ]);
  }
  if (cursor.s !== sort) {
    throw new DemoApiError(400, 'invalid_parameter', `Invalid query parameter: after was returned for sort=${cursor.s}, not sort=${sort}.`, [
      { in: 'query', field: 'after', message: `was returned for sort=${cursor.s}; keep the same sort (and filters) while paging` },
    ]);
  }
  return cursor;
}
