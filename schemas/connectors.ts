import { type Static, Type } from 'typebox';
import { Nullable, Timestamp, literals } from './common.js';
import { WebhookUrl } from './jobs.js';

/** The connector types that work (a create naming another type answers 422 listing these). */
export const CONNECTOR_TYPES = ['PostgreSQL', 'MySQL', 'MariaDB', 'ClickHouse', 'storage'] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];

export const CONNECTOR_STATUSES = ['unconfigured', 'connected', 'error'] as const;

export const ConnectorSchema = Type.Object(
  {
    id: Type.String(),
    organisationId: Type.String(),
    name: Type.String(),
    type: literals(CONNECTOR_TYPES, 'Set at creation, not changeable'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    status: literals(
      CONNECTOR_STATUSES,
      '`unconfigured` until the connector is used with test, browse or import (and again after its credentials change); then `connected` when the source was reached, or `error` when it could not be (see `errorMessage`). A query the source refuses does not change it.',
    ),
    errorMessage: Nullable(Type.String({ description: 'Why the source could not be reached the last time (set when `error`)' })),
    hasCredentials: Type.Boolean({ description: 'Whether credentials are stored (they are never returned)' }),
  },
  { $id: 'Connector', title: 'Connector' },
);
export type Connector = Static<typeof ConnectorSchema>;

const Host = Type.String({ minLength: 1, maxLength: 253, pattern: '^([A-Za-z0-9_.-]+|\\[?[0-9A-Fa-f:.]+\\]?)$', description: 'Host name or IP address' });
const Port = Type.Integer({ minimum: 1, maximum: 65535 });
const Secret = (description: string) => Type.String({ maxLength: 4096, description });

const SslSchema = Type.Union(
  [
    Type.Boolean({ description: '`true`: TLS with the server certificate verified against the system roots' }),
    Type.Object(
      {
        rejectUnauthorized: Type.Optional(Type.Boolean({ default: true, description: '`false` accepts any certificate (not recommended)' })),
        ca: Type.Optional(Type.String({ maxLength: 65536, description: 'PEM certificate(s) of the authority that signed the server certificate' })),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'TLS to the server; omitted or false: plain TCP' },
);

export const SqlFieldCredentialsSchema = Type.Object(
  {
    host: Host,
    port: Type.Optional(Port),
    database: Type.String({ minLength: 1, maxLength: 256 }),
    user: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.Optional(Secret('The password (encrypted at rest, never returned)')),
    ssl: Type.Optional(SslSchema),
  },
  { $id: 'SqlCredentials', title: 'SqlCredentials', additionalProperties: false, description: 'PostgreSQL, MySQL, MariaDB: the port defaults to 5432 (PostgreSQL) or 3306' },
);

export const ConnectionStringCredentialsSchema = Type.Object(
  {
    connectionString: Secret('`postgres://user:password@host:port/database?sslmode=require` or `mysql://user:password@host:port/database`'),
  },
  { $id: 'ConnectionStringCredentials', title: 'ConnectionStringCredentials', additionalProperties: false },
);

export const ClickHouseCredentialsSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'HTTP(S) interface, e.g. https://ch.example.com:8443' }),
    user: Type.Optional(Type.String({ maxLength: 256, default: 'default' })),
    password: Type.Optional(Secret('The password (encrypted at rest, never returned)')),
    database: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  },
  { $id: 'ClickHouseCredentials', title: 'ClickHouseCredentials', additionalProperties: false },
);

export const StorageCredentialsSchema = Type.Object(
  {
    root: Type.String({ minLength: 1, maxLength: 4096, description: 'An absolute directory inside `<root>/<organisationId>` of a storage root the operator allows (CAUSA_STORAGE_ROOTS)' }),
  },
  { $id: 'StorageCredentials', title: 'StorageCredentials', additionalProperties: false },
);

export type SqlFieldCredentials = Static<typeof SqlFieldCredentialsSchema>;
export type ConnectionStringCredentials = Static<typeof ConnectionStringCredentialsSchema>;
export type SqlCredentials = SqlFieldCredentials | ConnectionStringCredentials;
export type ClickHouseCredentials = Static<typeof ClickHouseCredentialsSchema>;
export type StorageCredentials = Static<typeof StorageCredentialsSchema>;
export type ConnectorCredentials = SqlCredentials | ClickHouseCredentials | StorageCredentials;

const CredentialsField = Type.Optional(
  Nullable(Type.Record(Type.String(), Type.Unknown()), {
    description:
      'Per type: PostgreSQL, MySQL, MariaDB take `SqlCredentials` or `ConnectionStringCredentials`; ClickHouse `ClickHouseCredentials`; storage `StorageCredentials`. ' +
      'Encrypted at rest (AES-256-GCM) and never returned, logged or echoed in an error. `null` removes them.',
  }),
);

export const CreateConnectorBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    type: Type.String({ minLength: 1, maxLength: 64, description: `One of ${CONNECTOR_TYPES.join(', ')} (case-insensitive; \`postgres\` is PostgreSQL)` }),
    credentials: CredentialsField,
  },
  { additionalProperties: false },
);

export const UpdateConnectorBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), credentials: CredentialsField },
  { additionalProperties: false },
);

const Context = {
  database: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  schema: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  warehouse: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
};

export const ReadConfigSchema = Type.Object(
  {
    table: Type.Optional(Type.String({
      minLength: 1, maxLength: 512,
      description: 'A table or view, as written in the source\'s SQL: `orders`, or qualified: PostgreSQL `schema.table` or `database.schema.table`; MySQL, MariaDB and '
        + 'ClickHouse `database.table`. Quote a part as the source does (`"Order Lines"` on PostgreSQL, `` `Order Lines` `` elsewhere; a doubled quote is a quote); names '
        + 'are taken as written, without case folding. The context may also come from `database` / `schema` (PostgreSQL: `schema`, default `public`); a member that '
        + 'names another qualifier than the table does answers 422.',
    })),
    ...Context,
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: 'One read-only SQL statement of the source\'s dialect' })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'Storage: a file relative to the connector root (CSV, TSV, NDJSON, JSON array or Parquet)' })),
    connectorId: Type.Optional(Type.Unknown({ description: 'Ignored: the connector comes from the route' })),
    type: Type.Optional(Type.Unknown({ description: 'Ignored: the type comes from the connector' })),
  },
  { additionalProperties: false, description: 'Exactly one of `table`, `query` (SQL connectors) or `path` (storage)' },
);

/** GET .../browse: the level to list and its context (drivers take other members as context too). */
export const BrowseMembers = {
  level: Type.String({ minLength: 1, maxLength: 64, description: 'databases, schemas, tables, columns or files (by connector type)' }),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Filters names case-insensitively' })),
  database: Type.Optional(Type.String({ maxLength: 256 })),
  schema: Type.Optional(Type.String({ maxLength: 256 })),
  table: Type.Optional(Type.String({ maxLength: 512 })),
  warehouse: Type.Optional(Type.String({ maxLength: 256 })),
  path: Type.Optional(Type.String({ maxLength: 4096 })),
};
export const BrowseQuery = Type.Object(BrowseMembers, { additionalProperties: Type.String({ maxLength: 1024 }) });

export const PreviewBody = Type.Object(
  {
    config: ReadConfigSchema,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
  },
  { additionalProperties: false },
);

const rowsMembers = {
  columns: Type.Array(Type.Object({ name: Type.String(), type: Type.String({ description: 'The source\'s type name' }) })),
  rows: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
    description: 'Rows keyed by column; 64-bit integers beyond 2^53 and exact decimals as strings, dates and datetimes as ISO text, bytes as base64',
  }),
  rowCount: Type.Integer({ minimum: 0 }),
  truncated: Type.Boolean({ description: 'True when the source had more rows than the limit' }),
  elapsedMs: Type.Number({ minimum: 0 }),
};

export const RowsSchema = Type.Object(rowsMembers, { $id: 'ConnectorRows', title: 'ConnectorRows' });

export const DirectQueryRowsSchema = Type.Object(
  { ...rowsMembers, workspaceId: Type.String({ description: 'The workspace the query was answered for' }) },
  { $id: 'DirectQueryRows', title: 'DirectQueryRows' },
);

export const DirectQueryBody = Type.Object(
  {
    workspaceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Required with an org-wide credential; a workspace credential supplies its own' })),
    config: ReadConfigSchema,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 30_000, default: 30_000, description: 'How long the query may run on the source' })),
  },
  { additionalProperties: false },
);

export const ImportBody = Type.Object(
  {
    workspaceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Required with an org-wide credential; a workspace credential supplies its own' })),
    config: ReadConfigSchema,
    datasetName: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, description: 'Name of the new source; defaults to the table, file or `query`' }))),
    ontologyMode: Type.Optional(literals(['auto', 'manual'] as const, 'Recorded on the new source; default `auto`')),
    webhookUrl: Type.Optional(Nullable(WebhookUrl)),
  },
  { additionalProperties: false },
);

export const BrowseEntrySchema = Type.Object(
  {
    name: Type.String(),
    kind: Type.String({ description: '`database`, `schema`, `table`, `view`, `column`, `directory` or `file`' }),
    dataType: Type.Optional(Type.String()),
    nullable: Type.Optional(Type.Boolean()),
    size: Type.Optional(Type.Integer()),
    modifiedAt: Type.Optional(Type.String()),
    path: Type.Optional(Type.String()),
    rowEstimate: Type.Optional(Nullable(Type.Number())),
  },
  { $id: 'BrowseEntry', title: 'BrowseEntry' },
);

export const TestResultSchema = Type.Object({
  ok: Type.Boolean(),
  status: literals(CONNECTOR_STATUSES),
  message: Type.String({ description: 'What happened, in words; the source\'s error (minus secrets) when it could not be reached' }),
  serverVersion: Nullable(Type.String()),
  latencyMs: Type.Number({ minimum: 0 }),
});
