/**
 * The rows of a scoring request (POST .../score) as its checks read them: inline records, or columnar JSON read as
 * records, with each problem located where the client wrote the value.
 */
import type { ScoreRequestBody } from '../../../schemas/simulations.js';
import type { ScoredRecord } from '../../engine/inference/score.js';
import { recordsOfTable } from '../../engine/inference/scm-records.js';
import { AppError, type FieldError } from '../../errors.js';

/** The 422 of a scoring request, every problem listed with its location. */
export const invalidScoreRequest = (errors: FieldError[]) => new AppError('validation_failed', `The scoring request is invalid: ${errors.map((e) => `${e.location}: ${e.message}`).join('; ')}`, { errors });

/** A scoring request's inline rows as its checks read them. */
export interface InlineRows {
  /** The rows as records (made on first use from columnar JSON; none by reference). */
  records(): ScoredRecord[];
  /** Every member name the rows use (a table's columns). */
  names(): string[];
  /** Where a problem found at `/<row>/<member>` of the records is in the body: under `rows`, or at the row and column of `rowsTable`. */
  locate(location: string): string;
}

export function inlineRows(request: Omit<ScoreRequestBody, 'webhookUrl'>): InlineRows {
  const table = request.rowsTable;
  if (table === undefined) {
    const records = request.rows ?? [];
    const names = () => {
      const seen = new Set<string>();
      for (const record of records) for (const name in record) seen.add(name);
      return [...seen];
    };
    return { records: () => records, names, locate: (location) => `body/rows${location}` };
  }
  const width = table.columns.length;
  const ragged = table.rows.findIndex((row) => row.length !== width);
  if (ragged >= 0) {
    const message = `each row has one value per column (${width}); this one has ${table.rows[ragged]!.length}`;
    throw invalidScoreRequest([{ location: `body/rowsTable/rows/${ragged}`, message }]);
  }
  const position = new Map(table.columns.map((name, i) => [name, i]));
  const locate = (location: string) => {
    const [, row, member, rest] = /^\/(\d+)(?:\/([^/]*))?(.*)$/.exec(location) ?? [];
    if (row === undefined) return `body/rowsTable${location}`;
    const name = member?.replace(/~1/g, '/').replace(/~0/g, '~');
    const column = name === undefined ? undefined : position.get(name);
    return `body/rowsTable/rows/${row}${name === undefined ? '' : `/${column ?? member}`}${rest ?? ''}`;
  };
  let records: ScoredRecord[] | undefined;
  return { records: () => (records ??= recordsOfTable(table)), names: () => [...table.columns], locate };
}
