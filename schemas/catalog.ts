import { type Static, Type } from 'typebox';
import { Nullable, PageQuery, Timestamp } from './common.js';

/** Catalog page size (spec, Limits): default 200, at most 1000. */
export const CatalogPageQuery = {
  ...PageQuery,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200, description: 'Page size, 1 to 1000 (default 200)' })),
};

export const CatalogTableSchema = Type.Object(
  {
    id: Type.String({ description: 'Source id' }),
    name: Type.String(),
    namespace: Type.String({ description: 'The workspace id' }),
    schema: Type.Array(Type.Object({ field: Type.String(), type: Type.String(), subtype: Nullable(Type.String()), description: Nullable(Type.String()) })),
    documentCount: Type.Integer({ description: 'Rows' }),
    format: Nullable(Type.String({ description: 'How the rows arrived: csv, tsv, ndjson, json (inline or array), parquet; null while empty' })),
    createdAt: Timestamp,
  },
  { $id: 'CatalogTable', title: 'CatalogTable' },
);

export const CatalogViewSchema = Type.Object(
  {
    id: Type.String({ description: 'Dataset id' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    namespace: Type.String({ description: 'The workspace id' }),
    sources: Type.Array(Type.Object({ id: Type.String(), name: Nullable(Type.String()) })),
    operationCount: Type.Integer(),
    rowCount: Nullable(Type.Integer({ description: 'Computed on demand; null when the definition no longer fits its sources' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'CatalogView', title: 'CatalogView' },
);
export type CatalogView = Static<typeof CatalogViewSchema>;
