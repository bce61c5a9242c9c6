/**
 * Metric SQL of a scenario, run by the data engine over a sampled frame registered as `df`, `data` and `dataset`
 * (spec "Intervention details"). The SQL is a client's: it is parsed first (EXPLAIN AST, which never executes)
 * and refused unless it is one SELECT that reads only the frame and its own subqueries. That keeps it inside the
 * tenant: no qualified table (another database), no table function (files, URLs, remote servers), no function
 * that reads outside the query, no SETTINGS. The frame travels as a bound query parameter (TabSeparated), never
 * spliced into the text, and only the columns the SQL names are sent.
 */
import { AppError } from '../errors.js';
import type { Frame } from '../engine/types.js';
import { type DataStore, DataStoreError, quoteColumn } from '../store/data/port.js';

const FRAME_TABLES = new Set(['df', 'data', 'dataset']);
/** Catalogue databases and tenant databases (org_...) may never be named. */
const FORBIDDEN_QUALIFIER = /^(org_|system$|information_schema$|default$)/i;
/** Functions that read outside the query, or describe the server. */
const FORBIDDEN_FUNCTION =
  /^(file|url|s3|s3cluster|hdfs|remote|remotesecure|cluster|clusterallreplicas|mysql|postgresql|jdbc|odbc|input|dictget\w*|dicthas|dictisin|joinget\w*|hascolumnintable|getmacro|getsetting|getserverport|currentuser|currentdatabase|currentprofiles|currentroles|hostname|fqdn|uptime|version|filesystem\w*|catboostevaluate|executable\w*|generaterandom|merge|view|viewifpermitted|loop|azureblobstorage\w*|iceberg\w*|deltalake|hudi|gcs|cosn|oss|redis|mongodb|sqlite|dictionary|format|numbers|zeros|shardnum|shardcount|getclientsetting|displayname|serveruuid|tcpport|buildid)$/i;
const QUERY_TIMEOUT_MS = 30_000;

interface CheckedSql {
  /** Columns of the frame the SQL names; null when it reads every column (`*`, COLUMNS(...)). */
  columns: Set<string> | null;
}

/** Why a metric's SQL cannot run: a 422 at submit, located at the scenario member that holds it. */
const invalid = (location: string, message: string) =>
  new AppError('validation_failed', `Metric SQL at ${location} is not accepted: ${message}`, { errors: [{ location, message }] });

/** Checked SQL texts: an optimisation evaluates the same metric hundreds of times. */
const CHECK_CACHE_SIZE = 500;

export class MetricSql {
  private readonly checked = new Map<string, CheckedSql>();

  constructor(private readonly store: Pick<DataStore, 'query'>) {}

  /** Parses the SQL and applies the rules above; answers which frame columns it reads. */
  async check(organisationId: string, sql: string, location: string): Promise<CheckedSql> {
    const text = sql.trim().replace(/;\s*$/, '');
    if (text.includes(';')) throw invalid(location, 'one SELECT statement only (no ";")');
    let lines: string[];
    try {
      // EXPLAIN answers one line of text per row (a bare string, or {explain} depending on the client's format).
      const rows = await this.store.query<string | { explain: string }>(organisationId, () => `EXPLAIN AST ${text}`, {}, { timeoutMs: 5000 });
      lines = rows.map((row) => (typeof row === 'string' ? row : row.explain));
    } catch (error) {
      throw invalid(location, error instanceof DataStoreError ? error.message.split('\n')[0]!.slice(0, 500) : 'it does not parse');
    }
    return inspectAst(lines, location);
  }

  /** Runs checked SQL over the frame and answers the first row's `value` as a number (booleans as 0/1). */
  async evaluate(organisationId: string, frame: Frame, sql: string, signal?: AbortSignal): Promise<number> {
    let checked = this.checked.get(sql);
    if (checked === undefined) {
      checked = await this.check(organisationId, sql, 'metric');
      if (this.checked.size >= CHECK_CACHE_SIZE) this.checked.clear();
      this.checked.set(sql, checked);
    }
    const { columns } = checked;
    const used = frame.columns.filter((column) => columns === null || columns.has(column.name));
    const structure = used.length === 0 ? '`__unit` UInt8' : used.map((c) => `${quoteColumn(c.name)} ${c.kind === 'continuous' ? 'Nullable(Float64)' : 'Nullable(String)'}`).join(', ');
    const text = sql.trim().replace(/;\s*$/, '');
    const frameCte = `df AS (SELECT * FROM format(TabSeparated, {structure:String}, {frame:String})), data AS (SELECT * FROM df), dataset AS (SELECT * FROM df)`;
    const query = /^with\b/i.test(text) ? `WITH ${frameCte}, ${text.replace(/^with\b/i, '')}` : `WITH ${frameCte} ${text}`;
    let rows: Array<Record<string, unknown>>;
    try {
      rows = await this.store.query(organisationId, () => query, { structure, frame: toTabSeparated(frame, used) }, { timeoutMs: QUERY_TIMEOUT_MS, ...(signal ? { signal } : {}) });
    } catch (error) {
      throw new AppError('validation_failed', `The metric SQL failed on the simulated data: ${error instanceof Error ? error.message.split('\n')[0]!.slice(0, 500) : String(error)}`);
    }
    const first = rows[0];
    if (first === undefined || !('value' in first)) throw new AppError('validation_failed', 'The metric SQL must yield a row with a column named `value`');
    const value = first.value;
    const number = typeof value === 'boolean' ? Number(value) : typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number !== 'number' || Number.isNaN(number)) throw new AppError('validation_failed', `The metric SQL's value ${JSON.stringify(value)} is not a number`);
    return number;
  }
}

/** Applies the rules to EXPLAIN AST output (one node per line, children indented by one space). */
function inspectAst(lines: string[], location: string): CheckedSql {
  const root = lines[0]?.trim() ?? '';
  if (!root.startsWith('SelectWithUnionQuery') && !root.startsWith('SelectIntersectExceptQuery')) throw invalid(location, 'it must be a SELECT');
  const tableAliases = new Set<string>();
  const nodes = lines.map((line) => ({ depth: line.length - line.trimStart().length, text: line.trim() }));
  for (const { text } of nodes) {
    const alias = /^(TableIdentifier|Subquery)\b.*\(alias ([^)\s]+)\)/.exec(text);
    if (alias) tableAliases.add(alias[2]!);
  }
  const columns = new Set<string>();
  let everyColumn = false;
  nodes.forEach(({ depth, text }, i) => {
    // The query's own trailing FORMAT clause, added by the data store, is the root's second child.
    if (depth === 1 && text.startsWith('Identifier ')) return;
    const [kind, name = ''] = text.split(/\s+/, 2);
    if (kind === 'Set') throw invalid(location, 'SETTINGS are not allowed');
    if (kind === 'TableIdentifier') {
      if (name.includes('.')) throw invalid(location, `it may read only df, data or dataset (not ${name})`);
    } else if (kind === 'TableExpression') {
      const child = nodes[i + 1];
      if (child !== undefined && child.depth > depth && child.text.startsWith('Function ')) throw invalid(location, `table functions are not allowed (${child.text.split(/\s+/)[1]})`);
    } else if (kind === 'Function') {
      if (FORBIDDEN_FUNCTION.test(name)) throw invalid(location, `function ${name} is not allowed`);
    } else if (kind === 'Identifier') {
      const parts = name.split('.');
      if (parts.length > 1) {
        const qualifier = parts[0]!;
        if (FORBIDDEN_QUALIFIER.test(qualifier) || !(FRAME_TABLES.has(qualifier) || tableAliases.has(qualifier))) {
          throw invalid(location, `${name} names something outside the simulated frame`);
        }
      }
      columns.add(parts[parts.length - 1]!);
    } else if (kind === 'Asterisk' || kind === 'QualifiedAsterisk' || kind?.startsWith('ColumnsRegexpMatcher') || kind?.startsWith('ColumnsListMatcher')) {
      everyColumn = true;
    }
  });
  return { columns: everyColumn ? null : columns };
}

/** The frame's columns as TabSeparated text (\N for missing; categories escaped). */
function toTabSeparated(frame: Frame, columns: Frame['columns']): string {
  if (columns.length === 0) return '1\n'.repeat(frame.nRows);
  const cells: string[] = new Array(columns.length);
  const lines: string[] = new Array(frame.nRows);
  const escaped = columns.map((c) => (c.kind === 'categorical' ? c.categories.map(escapeTsv) : []));
  for (let r = 0; r < frame.nRows; r++) {
    columns.forEach((column, j) => {
      if (column.kind === 'continuous') {
        const v = column.values[r]!;
        cells[j] = Number.isFinite(v) ? String(v) : '\\N';
      } else {
        const code = column.codes[r]!;
        cells[j] = code < 0 ? '\\N' : escaped[j]![code]!;
      }
    });
    lines[r] = cells.join('\t');
  }
  return `${lines.join('\n')}\n`;
}

const escapeTsv = (value: string) => value.replaceAll('\\', '\\\\').replaceAll('\t', '\\t').replaceAll('\n', '\\n').replaceAll('\r', '\\r');
