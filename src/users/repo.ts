import type { PageRequest } from '../lib/page.js';
import type { MetaDb } from '../store/meta/port.js';
import type { UsersTable } from '../store/meta/schema.js';
import { listingTotal } from '../store/meta/keyset.js';

export type UserRow = UsersTable;

export class UserRepo {
  constructor(private readonly db: MetaDb) {}

  async insert(row: UserRow): Promise<void> {
    await this.db.insertInto('users').values(row).execute();
  }

  find(organisationId: string, id: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async list(organisationId: string, page: PageRequest): Promise<{ rows: UserRow[]; total: number }> {
    const base = this.db.selectFrom('users').where('organisation_id', '=', organisationId);
    let rows = base.selectAll();
    if (page.after !== null) rows = rows.where('id', '>', String(page.after[0]));
    const result = await rows.orderBy('id', 'asc').limit(page.limit + 1).execute();
    return { rows: result, total: await listingTotal(base, page, result.length) };
  }
}
