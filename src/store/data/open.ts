import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import type { Config } from '../../config.js';
import { createClickHouseDataStore } from './clickhouse.js';
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

export function openChdbDataStore(path: string): DataStore {
  mkdirSync(path, { recursive: true });
  // chdb/connection is CommonJS; loaded lazily so that processes on a ClickHouse server never load libchdb.
  const { createChdbConnection } = createRequire(import.meta.url)('chdb/connection') as typeof import('chdb/connection');
  return createClickHouseDataStore(createClient({ connection: createChdbConnection({ path }) } as never), 'chdb');
}
