import type { DataStore, TableRef } from '../../store/data/port.js';

/**
 * The data store tables of a run, named from the run id's random part (data store table ids are generated, never
 * a client's): a panel run's per-environment records (`pnl_`), a batch's staged input (`bin_`), the chunk being
 * written (`bch_`) and its row results (`brs_`).
 */
const PREFIX = { panel: 'pnl', input: 'bin', chunk: 'bch', results: 'brs' } as const;

export const runTable = (kind: keyof typeof PREFIX, organisationId: string, runId: string): TableRef => ({ organisationId, tableId: `${PREFIX[kind]}_${runId.slice(runId.indexOf('_') + 1)}` });

/** Whether a run's table is still there (a deleted twin takes its runs' tables with it). */
export async function tableExists(store: DataStore, table: TableRef): Promise<boolean> {
  const found = await store.query<{ n: number | string }>(table.organisationId, () => 'SELECT count() AS n FROM system.tables WHERE database = {db:String} AND name = {name:String}', { db: table.organisationId, name: table.tableId });
  return Number(found[0]?.n ?? 0) > 0;
}
