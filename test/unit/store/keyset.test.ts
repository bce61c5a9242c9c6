/** Listing pages and their totals (src/store/meta/keyset.ts): a first page that holds every row needs no count. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Kysely, SqliteDialect } from 'kysely';
import Database from 'libsql';
import { newestFirstPage } from '../../../src/store/meta/keyset.js';

test('a page answers the total of the listing, asking for a count only when the page does not hold every row', async () => {
  const statements: string[] = [];
  const db = new Kysely<{ t: { created_at: string; id: string; kind: string } }>({
    dialect: new SqliteDialect({ database: new Database(':memory:') as never }),
    log: (event) => {
      statements.push(event.query.sql);
    },
  });
  await db.schema.createTable('t').addColumn('created_at', 'text').addColumn('id', 'text').addColumn('kind', 'text').execute();
  await db.insertInto('t').values(['a', 'b', 'c', 'd', 'e'].map((id, i) => ({ created_at: `2020-01-0${i + 1}`, id, kind: i < 3 ? 'x' : 'y' }))).execute();
  const counts = () => statements.filter((sql) => sql.includes('count(*)')).length;
  const page = async (kind: string, limit: number, after: [string, string] | null) => {
    const before = counts();
    const { rows, total } = await newestFirstPage<{ id: string }>(db.selectFrom('t').where('kind', '=', kind), { limit, after });
    return { ids: rows.map((row) => row.id), total, counted: counts() > before };
  };
  assert.deepEqual(await page('x', 5, null), { ids: ['c', 'b', 'a'], total: 3, counted: false }, 'a first page holding every row is the total');
  assert.deepEqual(await page('x', 3, null), { ids: ['c', 'b', 'a'], total: 3, counted: false }, 'exactly the limit: the extra row read shows there is none beyond');
  assert.deepEqual(await page('x', 2, null), { ids: ['c', 'b', 'a'], total: 3, counted: true }, 'more rows than the limit: counted');
  assert.deepEqual(await page('x', 5, ['2020-01-03', 'c']), { ids: ['b', 'a'], total: 3, counted: true }, 'a later page counts the whole listing');
  assert.deepEqual(await page('z', 5, null), { ids: [], total: 0, counted: false });
  await db.destroy();
});
