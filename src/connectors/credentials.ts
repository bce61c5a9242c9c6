import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  CONNECTOR_TYPES,
  ClickHouseCredentialsSchema,
  ConnectionStringCredentialsSchema,
  type ConnectorCredentials,
  type ConnectorType,
  SqlFieldCredentialsSchema,
  StorageCredentialsSchema,
} from '../../schemas/connectors.js';
import { AppError, type FieldError } from '../errors.js';

const ALIASES: Record<string, ConnectorType> = {
  postgresql: 'PostgreSQL',
  postgres: 'PostgreSQL',
  mysql: 'MySQL',
  mariadb: 'MariaDB',
  clickhouse: 'ClickHouse',
  storage: 'storage',
};

/** The canonical type a create names (case-insensitive), or 422 listing the types that work. */
export function connectorType(name: string): ConnectorType {
  const type = ALIASES[name.trim().toLowerCase()];
  if (type === undefined) {
    throw new AppError('validation_failed', `Connector type "${name}" is not supported; supported types: ${CONNECTOR_TYPES.join(', ')}`, {
      errors: [{ location: 'body/type', message: `one of ${CONNECTOR_TYPES.join(', ')}` }],
    });
  }
  return type;
}

const isSqlType = (type: ConnectorType) => type === 'PostgreSQL' || type === 'MySQL' || type === 'MariaDB';

const compiled = new Map<TSchema, ReturnType<typeof Compile>>();
const validatorFor = (schema: TSchema) => {
  let validator = compiled.get(schema);
  if (validator === undefined) compiled.set(schema, (validator = Compile(schema)));
  return validator;
};

/**
 * Checks credentials against their type's shape (422 located under body/credentials; messages never repeat a
 * value, so a secret sent in the wrong member is not echoed). Storage roots must lie inside a root the
 * operator allows.
 */
export function validateCredentials(type: ConnectorType, credentials: Record<string, unknown>, storageRoots: readonly string[]): ConnectorCredentials {
  const shapes: TSchema[] = isSqlType(type)
    ? ['connectionString' in credentials ? ConnectionStringCredentialsSchema : SqlFieldCredentialsSchema]
    : [type === 'ClickHouse' ? ClickHouseCredentialsSchema : StorageCredentialsSchema];
  const validator = validatorFor(shapes[0]!);
  if (!validator.Check(credentials)) {
    const errors = [...validator.Errors(credentials)].slice(0, 10).map((e) => ({ location: `body/credentials${e.instancePath}`, message: e.message }));
    throw invalid(type, errors);
  }
  if ('connectionString' in credentials) connectionUrl(type, credentials.connectionString as string);
  if (type === 'ClickHouse') clickHouseUrl(credentials.url as string);
  if (type === 'storage') allowedRoot(credentials.root as string, storageRoots);
  return credentials as unknown as ConnectorCredentials;
}

const invalid = (type: ConnectorType, errors: FieldError[]) =>
  new AppError('validation_failed', `The credentials do not fit a ${type} connector: ${errors.map((e) => `${e.location}: ${e.message}`).join('; ')}`, { errors });

const SCHEMES: Record<string, string[]> = { PostgreSQL: ['postgres:', 'postgresql:'], MySQL: ['mysql:', 'mariadb:'], MariaDB: ['mysql:', 'mariadb:'] };

function connectionUrl(type: ConnectorType, text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(type, [{ location: 'body/credentials/connectionString', message: 'not a URL' }]);
  }
  try {
    [url.username, url.password, url.pathname].forEach((part) => decodeURIComponent(part));
  } catch {
    throw invalid(type, [{ location: 'body/credentials/connectionString', message: 'has a malformed percent-escape (write % as %25)' }]);
  }
  if (!SCHEMES[type]!.includes(url.protocol) || url.hostname === '') {
    throw invalid(type, [{ location: 'body/credentials/connectionString', message: `must be ${SCHEMES[type]!.map((s) => `${s}//user:password@host:port/database`).join(' or ')}` }]);
  }
}

function clickHouseUrl(text: string): void {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || !['http:', 'https:'].includes(url.protocol) || url.username !== '' || url.password !== '') {
    throw invalid('ClickHouse', [{ location: 'body/credentials/url', message: 'must be an http(s) URL of the HTTP interface, without user or password in it (use `user` and `password`)' }]);
  }
}

/** The real directory of a storage root, if it lies inside an allowed root; 422 otherwise. */
export function allowedRoot(root: string, storageRoots: readonly string[]): string {
  const refuse = (message: string) => invalid('storage', [{ location: 'body/credentials/root', message }]);
  if (storageRoots.length === 0) throw refuse('this service allows no storage roots (the operator sets CAUSA_STORAGE_ROOTS)');
  if (!isAbsolute(root)) throw refuse('must be an absolute directory');
  let real: string;
  try {
    real = realpathSync(root);
    if (!statSync(real).isDirectory()) throw new Error('not a directory');
  } catch {
    throw refuse('is not an existing directory');
  }
  if (!storageRoots.some((allowed) => within(real, allowed))) throw refuse(`is not inside this organisation's storage directories (${storageRoots.join(', ')})`);
  return real;
}

/**
 * The directories an organisation's storage connectors may read: its own directory under each operator root
 * (`<root>/<organisationId>`), so no tenant can point a connector at another's files.
 */
export function organisationRoots(storageRoots: readonly string[], organisationId: string): string[] {
  return storageRoots.map((root) => join(root, organisationId));
}

/** Whether `path` is `root` or below it (both real paths). */
export function within(path: string, root: string): boolean {
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    return false;
  }
  return path === real || path.startsWith(real.endsWith(sep) ? real : real + sep);
}
