import type { Kysely } from 'kysely';
import type { MetaDatabase } from './schema.js';

/**
 * The metadata store port. Repositories speak Kysely against `db`; the adapter owns the connection, the
 * dialect quirks (how a unique violation looks) and its life cycle.
 */
export interface MetaStore {
  readonly kind: 'sqlite' | 'postgres';
  readonly db: Kysely<MetaDatabase>;
  /** True when `error` is the driver's unique-constraint violation. */
  isUniqueViolation(error: unknown): boolean;
  /** Cheap round trip for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type MetaDb = Kysely<MetaDatabase>;
