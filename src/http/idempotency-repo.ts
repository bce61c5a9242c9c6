import type { MetaDb } from '../store/meta/port.js';
import type { IdempotencyKeysTable } from '../store/meta/schema.js';

export type IdempotencyRow = IdempotencyKeysTable;

export class IdempotencyRepo {
  constructor(
    private readonly db: MetaDb,
    private readonly isUniqueViolation: (error: unknown) => boolean,
  ) {}

  /** Claims the key for a new request; false when a row for it already exists. */
  async claim(row: IdempotencyRow): Promise<boolean> {
    try {
      await this.db.insertInto('idempotency_keys').values(row).execute();
      return true;
    } catch (error) {
      if (this.isUniqueViolation(error)) return false;
      throw error;
    }
  }

  find(organisationId: string, key: string): Promise<IdempotencyRow | undefined> {
    return this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
  }

  async complete(organisationId: string, key: string, status: number, headers: Record<string, string>, body: string): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ state: 'done', response_status: status, response_headers: JSON.stringify(headers), response_body: body })
      .where('organisation_id', '=', organisationId)
      .where('idempotency_key', '=', key)
      .execute();
  }

  /** Removes one claim, only if it is still the one we looked at (same created_at): no lost race deletes a newer claim. */
  async release(organisationId: string, key: string, createdAt?: string): Promise<void> {
    let query = this.db.deleteFrom('idempotency_keys').where('organisation_id', '=', organisationId).where('idempotency_key', '=', key);
    if (createdAt !== undefined) query = query.where('created_at', '=', createdAt);
    await query.execute();
  }

  async deleteOlderThan(cutoff: string): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).execute();
  }
}
