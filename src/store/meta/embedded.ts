import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, SqliteDialect, sql } from 'kysely';
import Database from 'libsql';
import { migrateToLatest } from './migrations.js';
import { withStatementCache } from './statement-cache.js';
import type { MetaStore } from './port.js';
import type { MetaDatabase } from './schema.js';

/** Embedded metadata store: one SQLite file (through libsql) under the data directory. */
export async function openEmbeddedMetaStore(file: string): Promise<MetaStore> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const database = new Database(file);
  // busy_timeout first, so even the switch to WAL waits for another process instead of failing; WAL lets the CLI
  // and a running server share the file.
  database.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;');
  const db = new Kysely<MetaDatabase>({ dialect: new SqliteDialect({ database: withStatementCache(database) as never }) });
  // Kysely takes no cross-process lock on SQLite: hold the write lock ourselves so two processes opening a new file
  // at once migrate one after the other.
  database.exec('BEGIN IMMEDIATE');
  try {
    await migrateToLatest(db, { disableTransactions: true });
    database.exec('COMMIT');
  } catch (error) {
    database.exec('ROLLBACK');
    await db.destroy();
    throw error;
  }
  return {
    kind: 'sqlite',
    db,
    isUniqueViolation: (error) => /UNIQUE constraint failed|SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)/.test(String((error as Error)?.message ?? '') + String((error as { code?: string })?.code ?? '')),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}
