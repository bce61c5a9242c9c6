/**
 * Panel result artifacts: a panel run's per-environment records (a panel prediction's rows, a panel_forecast's
 * steps) kept in the organisation's data store, one table per run, rather than inline with the run. The csv export
 * streams them as one wide file: `environment`, `timestamp` (empty for prediction), `row`, then per target its value
 * and its bounds (`<target>`, `<target>_lower`, `<target>_upper`; a categorical target: the most likely class and
 * `<target>_probability`).
 */
import type { Readable } from 'node:stream';
import type { ResultRecord } from '../engine/inference/outcome.js';
import type { DataStore, TableRef } from '../store/data/port.js';
import { runTable, tableExists } from './batch/tables.js';

export interface ArtifactTarget {
  name: string;
  kind: 'continuous' | 'categorical';
}

/** What a run records of its artifacts (RunResult.artifacts). */
export interface PanelArtifactsRecord {
  tableId: string;
  targets: ArtifactTarget[];
  rows: number;
}

const INSERT_BATCH = 50_000;

export class PanelArtifacts {
  constructor(private readonly data: () => DataStore) {}

  /** Writes the records of each environment; answers what the run keeps of them. */
  async write(organisationId: string, runId: string, perEnvironment: Record<string, Record<string, ResultRecord[]>>): Promise<PanelArtifactsRecord> {
    const store = this.data();
    const table = runTable('panel', organisationId, runId);
    const first = Object.values(perEnvironment)[0] ?? {};
    const targets: ArtifactTarget[] = Object.entries(first).map(([name, records]) => ({ name, kind: records[0]?.probabilities !== undefined ? 'categorical' : 'continuous' }));
    await store.ensureTenant(organisationId);
    await store.dropTable(table);
    await store.createTable(table, [
      { name: 'environment', type: 'String' },
      { name: 'row', type: 'UInt64' },
      { name: 'timestamp', type: 'Nullable(Int64)' },
      ...targets.flatMap((target, i) => (target.kind === 'continuous'
        ? [{ name: `t${i}`, type: 'Nullable(Float64)' }, { name: `t${i}_lower`, type: 'Nullable(Float64)' }, { name: `t${i}_upper`, type: 'Nullable(Float64)' }]
        : [{ name: `t${i}`, type: 'Nullable(String)' }, { name: `t${i}_probability`, type: 'Nullable(Float64)' }])),
    ], ['environment', 'row']);
    let rows = 0;
    let batch: Array<Record<string, unknown>> = [];
    for (const [key, results] of Object.entries(perEnvironment)) {
      const length = Math.max(0, ...targets.map((t) => results[t.name]?.length ?? 0));
      for (let r = 0; r < length; r++) {
        const head = results[targets[0]?.name ?? '']?.[r];
        const row: Record<string, unknown> = { environment: key, row: head?.row ?? r, timestamp: head?.timestamp ?? null };
        targets.forEach((target, i) => {
          const record = results[target.name]?.[r];
          if (target.kind === 'continuous') {
            row[`t${i}`] = numberOrNull(record?.prediction);
            row[`t${i}_lower`] = numberOrNull(record?.lowerBound);
            row[`t${i}_upper`] = numberOrNull(record?.upperBound);
          } else {
            const at = record?.categories?.indexOf(String(record.prediction)) ?? -1;
            row[`t${i}`] = record?.prediction === null || record?.prediction === undefined ? null : String(record.prediction);
            row[`t${i}_probability`] = at >= 0 ? (record?.probabilities?.[at] ?? null) : null;
          }
        });
        batch.push(row);
        rows++;
        if (batch.length >= INSERT_BATCH) {
          await store.insert(table, batch);
          batch = [];
        }
      }
    }
    if (batch.length > 0) await store.insert(table, batch);
    return { tableId: table.tableId, targets, rows };
  }

  /** The wide csv file, or null when the artifacts are gone. */
  async csv(organisationId: string, record: PanelArtifactsRecord, signal?: AbortSignal): Promise<Readable | null> {
    const table: TableRef = { organisationId, tableId: record.tableId };
    if (!(await tableExists(this.data(), table))) return null;
    const columns = record.targets.flatMap((target, i) => (target.kind === 'continuous'
      ? [[`t${i}`, target.name], [`t${i}_lower`, `${target.name}_lower`], [`t${i}_upper`, `${target.name}_upper`]]
      : [[`t${i}`, target.name], [`t${i}_probability`, `${target.name}_probability`]]));
    return this.data().export(
      organisationId,
      // Stored columns qualified: a target's name may be another stored column's (`t1`), and a bare name would read the alias.
      (sql) => `SELECT a.environment AS environment, a.timestamp AS timestamp, a.row AS row${columns.map(([column, name]) => `, a.${sql.column(column!)} AS ${sql.column(name!)}`).join('')} FROM ${sql.table(record.tableId)} AS a ORDER BY a.environment, a.row`,
      'CSVWithNames',
      {},
      signal === undefined ? {} : { signal },
    );
  }

  async drop(organisationId: string, record: PanelArtifactsRecord): Promise<void> {
    await this.data().dropTable({ organisationId, tableId: record.tableId });
  }
}

const numberOrNull = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
