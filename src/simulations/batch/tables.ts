import type { TableRef } from '../../store/data/port.js';

/**
 * The data store tables of a run, named from the run id's random part (data store table ids are generated, never
 * a client's): a panel run's per-environment records (`pnl_`), a batch's staged input (`bin_`), the chunk being
 * written (`bch_`) and its row results (`brs_`).
 */
const PREFIX = { panel: 'pnl', input: 'bin', chunk: 'bch', results: 'brs' } as const;

export const batchTable = (kind: keyof typeof PREFIX, organisationId: string, runId: string): TableRef => ({ organisationId, tableId: `${PREFIX[kind]}_${runId.slice(runId.indexOf('_') + 1)}` });
