/**
 * The prefix of every name the service gives columns of its own (a source table's row ordinal, a dataset's row keys,
 * the conversion's working values): no user column may start with it, so the two never meet in one query.
 */
export const INTERNAL_PREFIX = '_causa_';
