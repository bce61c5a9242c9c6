import type { ConnectionOptions } from 'node:tls';
import type { SqlCredentials } from '../../../schemas/connectors.js';

/** Where a SQL connector connects and as whom: credential fields, or a connection string read into the same. */
export interface SqlEndpoint {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string | undefined;
  /** TLS options (servername set to the host), or undefined for plain TCP. */
  tls: ConnectionOptions | undefined;
}

/**
 * Reads `{host, port, database, user, password, ssl}` or `{connectionString}` (`scheme://user:password@host:port/db`,
 * percent-escapes decoded, `sslmode` of libpq: disable, require / no-verify (encrypted, unverified), verify-ca,
 * verify-full).
 */
export function sqlEndpoint(credentials: SqlCredentials, defaultPort: number): SqlEndpoint {
  if ('connectionString' in credentials) {
    const url = new URL(credentials.connectionString);
    const mode = url.searchParams.get('sslmode') ?? url.searchParams.get('ssl-mode');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return {
      host,
      port: url.port === '' ? defaultPort : Number(url.port),
      database: decodeURIComponent(url.pathname.replace(/^\//, '')),
      user: decodeURIComponent(url.username),
      password: url.password === '' ? undefined : decodeURIComponent(url.password),
      tls: mode === null || mode === 'disable' || mode.toLowerCase() === 'disabled' ? undefined
        : { servername: host, rejectUnauthorized: !['require', 'no-verify', 'prefer', 'required'].includes(mode.toLowerCase()) },
    };
  }
  const { ssl } = credentials;
  return {
    host: credentials.host,
    port: credentials.port ?? defaultPort,
    database: credentials.database,
    user: credentials.user,
    password: credentials.password,
    tls: ssl === undefined || ssl === false ? undefined
      : ssl === true ? { servername: credentials.host, rejectUnauthorized: true }
      : { servername: credentials.host, rejectUnauthorized: ssl.rejectUnauthorized ?? true, ...(ssl.ca === undefined ? {} : { ca: ssl.ca }) },
  };
}
