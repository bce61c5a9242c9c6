import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import type { Config } from '../../config.js';
import { createClickHouseDataStore } from './clickhouse.js';
import { pooledClient } from './session-pool.js';
import type { DataStore } from './port.js';

/**
 * A ClickHouse server when CLICKHOUSE_URL is set, else chDB in this process on `<data dir>/chdb`.
 * chDB rules (DESIGN.md): main thread only, one data directory per process.
 */
export function openDataStore(config: Pick<Config, 'clickhouseUrl' | 'dataDir'>): DataStore {
  if (config.clickhouseUrl !== null) {
    return createClickHouseDataStore(createClient({ url: config.clickhouseUrl }), 'clickhouse');
  }
  return openChdbDataStore(join(config.dataDir, 'chdb'));
}

/** chDB sessions per process: enough that a long dataset query leaves others served (session-pool.ts). */
export const CHDB_SESSIONS = 4;

export function openChdbDataStore(path: string, sessions = CHDB_SESSIONS): DataStore {
  mkdirSync(path, { recursive: true });
  // chdb/connection is CommonJS; loaded lazily so that processes on a ClickHouse server never load libchdb.
  const { createChdbConnection } = createRequire(import.meta.url)('chdb/connection') as typeof import('chdb/connection');
  const clients = Array.from({ length: sessions }, () => createClient({ connection: createChdbConnection({ path }) } as never));
  return createClickHouseDataStore(pooledClient(clients), 'chdb');
}
