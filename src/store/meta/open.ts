import { join } from 'node:path';
import type { Config } from '../../config.js';
import { openEmbeddedMetaStore } from './embedded.js';
import type { MetaStore } from './port.js';
import { openPostgresMetaStore } from './postgres.js';

/** PostgreSQL when DATABASE_URL is set, else the embedded SQLite file in the data directory. */
export function openMetaStore(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<MetaStore> {
  return config.databaseUrl !== null
    ? openPostgresMetaStore(config.databaseUrl)
    : openEmbeddedMetaStore(join(config.dataDir, 'meta.sqlite'));
}
