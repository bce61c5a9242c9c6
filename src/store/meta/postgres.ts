import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrations.js';
import type { MetaStore } from './port.js';
import type { MetaDatabase } from './schema.js';

/** Scale-out metadata store: PostgreSQL through a `pg` pool shared by all requests of this process. */
export async function openPostgresMetaStore(connectionString: string, poolSize = 10): Promise<MetaStore> {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  const db = new Kysely<MetaDatabase>({ dialect: new PostgresDialect({ pool }) });
  await migrateToLatest(db);
  return {
    kind: 'postgres',
    db,
    // 23505 = unique_violation (PostgreSQL error codes, appendix A).
    isUniqueViolation: (error) => (error as { code?: string })?.code === '23505',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}
