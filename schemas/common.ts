import { type Static, type TSchema, Type } from 'typebox';

/** RFC 9457/7807 problem document: the body of every error response. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'Stable problem type URN, e.g. urn:causa:problem:validation-failed' }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String(),
    instance: Type.Optional(Type.String({ description: 'The request path' })),
    requestId: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          location: Type.String({ description: 'Where: body, query or params plus a JSON pointer' }),
          message: Type.String(),
        }),
      ),
    ),
  },
  { $id: 'Problem', title: 'Problem' },
);
export type Problem = Static<typeof ProblemSchema>;

export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);

/** One of a fixed list of strings, typed as that union. */
export const literals = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>(Type.Union(values.map((value) => Type.Literal(value)), description === undefined ? {} : { description }));

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO-8601 UTC timestamp' });

export const PaginationSchema = Type.Object(
  {
    cursor: Nullable(Type.String({ description: 'Opaque; pass back as query parameter `cursor` for the next page' })),
    hasMore: Type.Boolean(),
    total: Type.Integer({ minimum: 0, description: 'Count of items matching the current filters' }),
  },
  { $id: 'Pagination', title: 'Pagination' },
);
export type Pagination = Static<typeof PaginationSchema>;

/** A `$ref` to a schema registered with addSchema, typed as the schema itself so handlers keep inference. */
export const ref = <T extends TSchema>(schema: T): T =>
  Type.Unsafe<never>({ $ref: `${(schema as { $id?: string }).$id}#` }) as unknown as T;

export const dataEnvelope = <T extends TSchema>(data: T) => Type.Object({ data });

export const listEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), pagination: ref(PaginationSchema) });

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Page size, 1 to 1000' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Opaque cursor from a previous page' })),
};

/** An id of a resource, in a path or a body. */
export const IdString = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

/** Path parameters: one id, named as in the route. */
export const IdParam = <N extends string>(name: N, description: string) =>
  Type.Object({ [name]: IdString(description) } as Record<N, ReturnType<typeof IdString>>);

/** Path parameters of a route under /workspaces/{wsId}. */
export const WorkspaceParams = IdParam('wsId', 'Workspace id');

/** Path parameters of a route under /workspaces/{wsId}/digital-twins/{id}. */
export const TwinParams = Type.Object({ ...WorkspaceParams.properties, id: IdString('Digital twin id') });

/** Path parameters of a route under /workspaces/{wsId}/digital-twins/{id}/versions/{vId}. */
export const TwinVersionParams = Type.Object({ ...TwinParams.properties, vId: IdString('Version id') });

/** A request body: unknown members are refused (422) rather than silently dropped. */
export const Body = <P extends Record<string, TSchema>>(properties: P, options: { description?: string } = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });
