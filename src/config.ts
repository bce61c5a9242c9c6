import { cpus } from 'node:os';
import { isAbsolute, resolve } from 'node:path';

/** Typed service configuration, read once from the environment at start-up. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  clickhouseUrl: string | null;
  redisUrl: string | null;
  bootstrapApiKey: string | null;
  /** 32 bytes; null means "generate or load one from the data dir" (embedded profile only). */
  secretKey: Buffer | null;
  workers: number;
  /** Jobs one process runs at once (CAUSA_JOB_CONCURRENCY, default = workers). */
  jobConcurrency: number;
  /** Simulation runs one process runs at once (CAUSA_SIMULATION_CONCURRENCY, default = 2 x workers, at least 4). */
  simulationConcurrency: number;
  /** Hosts webhooks may call even though they resolve to non-public addresses (CAUSA_WEBHOOK_ALLOW_HOSTS). */
  webhookAllowHosts: string[];
  /** Hosts connectors may reach even though they resolve to non-public addresses (CAUSA_CONNECTOR_ALLOW_HOSTS). */
  connectorAllowHosts: string[];
  /** Bytes of the parts a connector's CSV extract is stored in, each while the next is read (CAUSA_IMPORT_PART_BYTES, default 16 MiB). */
  importPartBytes: number;
  /** Sessions an import reads one large PostgreSQL table over, side by side under one snapshot (CAUSA_IMPORT_READ_CONNECTIONS, default 2). */
  importReadConnections: number;
  /** Least bytes of table pages per such session: smaller tables are read over fewer (CAUSA_IMPORT_RANGE_BYTES, default 32 MiB). */
  importRangeBytes: number;
  /** Absolute directories storage connectors may read under (CAUSA_STORAGE_ROOTS, comma-separated; none by default). */
  storageRoots: string[];
  /** Browser origins allowed to call the MCP endpoint besides the service's own (CAUSA_MCP_ALLOWED_ORIGINS, comma-separated). */
  mcpAllowedOrigins: string[];
  logLevel: LogLevel;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** An API key value: `pk_` followed by URL-safe characters (generated keys carry 43). */
export const API_KEY_PATTERN = /^pk_[A-Za-z0-9_-]{16,200}$/;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    expectation: string,
    value: string,
  ) {
    super(`Invalid environment variable ${variable}: expected ${expectation}, got ${JSON.stringify(value)}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
  return value;
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = optional(env, name);
  if (raw === undefined) return null;
  const expectation = `a URL with scheme ${protocols.map((p) => `${p}//`).join(' or ')}`;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, expectation, redactUrl(raw));
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, expectation, redactUrl(raw));
  return raw;
}

/** Never echo a password from a connection string into logs or error messages. */
function redactUrl(raw: string): string {
  return raw.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

function secretKey(env: Env): Buffer | null {
  const raw = optional(env, 'CAUSA_SECRET_KEY');
  if (raw === undefined) return null;
  const bytes = Buffer.from(raw, 'base64');
  if (bytes.length !== 32 || bytes.toString('base64').replace(/=+$/, '') !== raw.replace(/=+$/, '')) {
    throw new ConfigError('CAUSA_SECRET_KEY', '32 bytes encoded as base64 (openssl rand -base64 32)', '<hidden>');
  }
  return bytes;
}

/** A comma-separated list of host names or host:port pairs (an operator allow-list). */
function hostList(env: Env, name: string): string[] {
  const raw = optional(env, name);
  if (raw === undefined) return [];
  const hosts = raw.split(',').map((host) => host.trim().toLowerCase()).filter((host) => host !== '');
  for (const host of hosts) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(host)) throw new ConfigError(name, 'comma-separated host names or host:port pairs', host);
  }
  return hosts;
}

/** A comma-separated list of web origins (`https://app.example.com`), as browsers send them. */
function originList(env: Env, name: string): string[] {
  const raw = optional(env, name);
  if (raw === undefined) return [];
  const origins = raw.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = null;
    }
    if (parsed === null || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin.replace(/\/$/, '')) throw new ConfigError(name, 'comma-separated origins such as https://app.example.com', origin);
  }
  return origins.map((origin) => origin.replace(/\/$/, ''));
}

/** A comma-separated list of absolute directories. */
function directoryList(env: Env, name: string): string[] {
  const raw = optional(env, name);
  if (raw === undefined) return [];
  const directories = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const directory of directories) if (!isAbsolute(directory)) throw new ConfigError(name, 'comma-separated absolute directories', directory);
  return directories.map((directory) => resolve(directory));
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = optional(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`, logLevel);
  }
  const bootstrapApiKey = optional(env, 'CAUSA_BOOTSTRAP_API_KEY') ?? null;
  if (bootstrapApiKey !== null && !API_KEY_PATTERN.test(bootstrapApiKey)) {
    throw new ConfigError('CAUSA_BOOTSTRAP_API_KEY', 'pk_ followed by 16 to 200 characters of A-Z a-z 0-9 _ -', '<hidden>');
  }
  const host = optional(env, 'HOST') ?? '127.0.0.1';
  if (/\s/.test(host)) throw new ConfigError('HOST', 'a host name or address', host);
  const config: Config = {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host,
    dataDir: resolve(optional(env, 'CAUSA_DATA_DIR') ?? './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    clickhouseUrl: url(env, 'CLICKHOUSE_URL', ['http:', 'https:']),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    bootstrapApiKey,
    secretKey: secretKey(env),
    workers: integer(env, 'CAUSA_WORKERS', Math.max(1, cpus().length), 1, 256),
    jobConcurrency: 0,
    simulationConcurrency: 0,
    webhookAllowHosts: hostList(env, 'CAUSA_WEBHOOK_ALLOW_HOSTS'),
    connectorAllowHosts: hostList(env, 'CAUSA_CONNECTOR_ALLOW_HOSTS'),
    importPartBytes: integer(env, 'CAUSA_IMPORT_PART_BYTES', 16 * 1024 ** 2, 4096, 1024 ** 3),
    importReadConnections: integer(env, 'CAUSA_IMPORT_READ_CONNECTIONS', 2, 1, 16),
    importRangeBytes: integer(env, 'CAUSA_IMPORT_RANGE_BYTES', 32 * 1024 ** 2, 8192, 1024 ** 4),
    storageRoots: directoryList(env, 'CAUSA_STORAGE_ROOTS'),
    mcpAllowedOrigins: originList(env, 'CAUSA_MCP_ALLOWED_ORIGINS'),
    logLevel: logLevel as LogLevel,
  };
  config.jobConcurrency = integer(env, 'CAUSA_JOB_CONCURRENCY', config.workers, 1, 256);
  config.simulationConcurrency = integer(env, 'CAUSA_SIMULATION_CONCURRENCY', Math.max(4, 2 * config.workers), 1, 1024);
  // Processes of the scale-out profile must agree on one key (cursors, credentials), so none may invent its own.
  if (config.databaseUrl !== null && config.secretKey === null) {
    throw new ConfigError('CAUSA_SECRET_KEY', 'a value whenever DATABASE_URL is set (all processes must share it)', '');
  }
  return config;
}
