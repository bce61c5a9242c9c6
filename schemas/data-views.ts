import { type Static, Type } from 'typebox';
import { Body, Nullable, PageQuery, Timestamp } from './common.js';

const Name = Type.String({ minLength: 1, maxLength: 256, description: 'Unique in the workspace, case-insensitive' });
const Description = Nullable(Type.String({ maxLength: 10_000 }));
const QueryText = Type.String({ minLength: 1, maxLength: 20_000, description: 'A SELECT in the anchor query language' });

/** A saved anchor query (the query answer's `dataViewId`): reading its rows runs it again on the current data. */
export const DataViewSchema = Type.Object(
  {
    id: Type.String(),
    organisationId: Type.String(),
    workspaceId: Type.String(),
    name: Type.String(),
    description: Description,
    query: Type.String(),
    createdBy: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'DataView', title: 'DataView' },
);
export type DataView = Static<typeof DataViewSchema>;

/** `saveAs` of a query request, and the body of a create. */
export const SaveAsSchema = Type.Object({ name: Name, description: Type.Optional(Description) }, { additionalProperties: false, description: 'Save the query as a data view of this name (needs datasets:write); the answer carries its `dataViewId`' });
export type SaveAs = Static<typeof SaveAsSchema>;

export const CreateDataViewBody = Body({ name: Name, description: Type.Optional(Description), query: QueryText });
export type CreateDataView = Static<typeof CreateDataViewBody>;

export const PatchDataViewBody = Body({ name: Type.Optional(Name), description: Type.Optional(Description), query: Type.Optional(QueryText) });
export type PatchDataView = Static<typeof PatchDataViewBody>;

export const DataViewListQuery = Type.Object(PageQuery, { additionalProperties: false });

export const DataViewRowsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Rows per page, 1 to 1000' })),
    startKey: Type.Optional(Type.Integer({ minimum: 0, description: 'The `nextStartKey` of the previous page' })),
  },
  { additionalProperties: false },
);
