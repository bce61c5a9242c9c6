import type { ClickHouseCredentials, ConnectorCredentials, ConnectorType, SqlCredentials, StorageCredentials } from '../../../schemas/connectors.js';
import { openClickHouseDriver } from './clickhouse.js';
import { openMySqlDriver } from './mysql.js';
import type { DriverOptions } from './network.js';
import type { ConnectorDriver } from './port.js';
import { openPostgresDriver } from './postgres.js';
import { openStorageDriver } from './storage.js';

/** The driver of a connector type, over credentials already checked against that type's shape. */
export function openDriver(type: ConnectorType, credentials: ConnectorCredentials, options: DriverOptions): ConnectorDriver {
  switch (type) {
    case 'PostgreSQL':
      return openPostgresDriver(credentials as SqlCredentials, options);
    case 'MySQL':
    case 'MariaDB':
      return openMySqlDriver(credentials as SqlCredentials, options);
    case 'ClickHouse':
      return openClickHouseDriver(credentials as ClickHouseCredentials, options);
    case 'storage':
      return openStorageDriver(credentials as StorageCredentials, options);
  }
}
