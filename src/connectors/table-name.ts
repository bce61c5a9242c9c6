/**
 * A table as users write it: `orders`, `public.orders`, `analytics.public.orders`, with any part quoted the way
 * the source quotes identifiers (`"Order Lines"` for PostgreSQL, `` `Order Lines` `` for MySQL, MariaDB and
 * ClickHouse, which also takes `"..."`); a doubled quote inside a quoted part is one quote character. Names are
 * taken as written (no case folding); a dot inside a name needs quotes.
 */
import type { ConnectorType } from '../../schemas/connectors.js';
import { AppError } from '../errors.js';

const QUOTES: Record<Exclude<ConnectorType, 'storage'>, string[]> = {
  PostgreSQL: ['"'],
  MySQL: ['`'],
  MariaDB: ['`'],
  ClickHouse: ['`', '"'],
};

/** The dot-separated parts of `text`, unquoted; null when it is not a well-formed identifier path. */
export function identifierParts(text: string, quotes: readonly string[]): string[] | null {
  const parts: string[] = [];
  let i = 0;
  for (;;) {
    while (text[i] === ' ') i++;
    const quote = quotes.find((q) => text[i] === q);
    let part = '';
    if (quote !== undefined) {
      for (i++; ; i++) {
        if (i >= text.length) return null; // unterminated
        if (text[i] === quote) {
          if (text[i + 1] !== quote) break;
          i++;
        }
        part += text[i];
      }
      i++;
    } else {
      while (i < text.length && text[i] !== '.') part += text[i++];
      part = part.trim();
    }
    while (text[i] === ' ') i++;
    if (part === '') return null;
    parts.push(part);
    if (i >= text.length) return parts;
    if (text[i] !== '.') return null;
    i++;
  }
}

/**
 * The table and its context from `config.table` and the optional `database` / `schema` members: a qualified name
 * fills them, and a member that names something else than the qualifier is refused (422 on `body/config/table`).
 */
export function qualifiedTable(type: Exclude<ConnectorType, 'storage'>, config: { table: string; database?: string; schema?: string }): { table: string; database?: string; schema?: string } {
  const refuse = (message: string) => new AppError('validation_failed', `config.table: ${message}`, { errors: [{ location: 'body/config/table', message }] });
  const parts = identifierParts(config.table, QUOTES[type]);
  if (parts === null) throw refuse(`"${config.table}" is not a table name (an unterminated quote, an empty part or text after a quoted part); quote a name that holds a dot with ${QUOTES[type].join(' or ')}`);
  const levels = type === 'PostgreSQL' ? (['database', 'schema'] as const) : (['database'] as const);
  if (parts.length > levels.length + 1) throw refuse(`a ${type} table is named by at most ${levels.length + 1} parts (${[...levels, 'table'].join('.')})`);
  const table = parts.at(-1)!;
  const qualifiers = parts.slice(0, -1);
  const named: { database?: string; schema?: string } = {};
  // The qualifiers are the last levels: schema.table on PostgreSQL, database.table elsewhere.
  levels.slice(levels.length - qualifiers.length).forEach((level, k) => (named[level] = qualifiers[k]!));
  for (const level of levels) {
    const given = config[level];
    if (given !== undefined && named[level] !== undefined && given !== named[level]) {
      throw refuse(`the table is qualified by ${level} "${named[level]}" but config.${level} is "${given}"; give one of them`);
    }
  }
  const database = named.database ?? config.database;
  const schema = named.schema ?? config.schema;
  return { table, ...(database === undefined ? {} : { database }), ...(schema === undefined ? {} : { schema }) };
}
