/** The run record of the spec ("Simulation run") from its job row. */
import type { Progress } from '../../schemas/jobs.js';
import type { RunStatus, SimulationRunSummary } from '../../schemas/simulations.js';
import { maskedWebhook } from '../jobs/service.js';
import type { RunParams, RunResult } from './execution.js';
import type { RunRow } from './repo.js';

/** queued = pending; running = its phase (configuring until the run says otherwise); terminal states as they are. */
export function runStatus(row: Pick<RunRow, 'status' | 'phase'>): RunStatus {
  if (row.status === 'queued') return 'pending';
  if (row.status === 'running') return (row.phase as RunStatus | null) ?? 'configuring';
  return row.status;
}

/** The run record without its scenario (the caller adds it: parsed for lists, spliced as text for reads). */
export function presentRun(row: RunRow): Omit<SimulationRunSummary, 'scenario'> {
  const params = JSON.parse(row.params) as RunParams;
  const status = runStatus(row);
  const progress = JSON.parse(row.progress) as Progress;
  const result = row.result == null ? null : (JSON.parse(row.result) as RunResult);
  return {
    id: row.id,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    digitalTwinId: row.resource_id ?? '',
    digitalTwinVersionIds: [params.versionId],
    scenarioType: row.subtype ?? '',
    userQuery: params.userQuery,
    createdAt: row.created_at,
    timeStarted: row.started_at,
    timeCompleted: row.completed_at,
    status,
    error: row.error,
    progress: status === 'pending' ? { ...progress, state: 'pending' } : progress,
    // inline: every result in the outputs; inline+datastore: panel artifacts beside them; datastore: a batch's row results only there.
    outputsStorageType: result?.rowsTable !== undefined ? 'datastore' : result?.artifacts === undefined ? 'inline' : 'inline+datastore',
    resultsSummary: result?.resultsSummary ?? null,
    environmentGroupSnapshots: params.environmentGroupSnapshots ?? [],
    executedByUserId: row.created_by,
    applicationExecutionId: null,
    webhookUrl: row.webhook_url === null ? null : maskedWebhook(row.webhook_url),
    seed: params.seed,
    // csv: a completed forecast-shaped panel run with its artifacts; single-environment twins never offer it (spec "Simulation run").
    exportFormats: status !== 'completed' ? [] : result?.artifacts === undefined ? ['json'] : ['json', 'csv'],
  };
}

/** `{...record, key: text...}` as JSON text, each text (JSON, stored as it was written) placed as it is. */
export function spliceJson(record: object, parts: Record<string, string | null>): string {
  const head = JSON.stringify(record);
  const tail = Object.entries(parts).map(([key, text]) => `${JSON.stringify(key)}:${text ?? 'null'}`).join(',');
  return head === '{}' ? `{${tail}}` : `${head.slice(0, -1)},${tail}}`;
}
