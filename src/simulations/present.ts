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

export function presentRun(row: RunRow): SimulationRunSummary {
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
    scenario: params.kind === 'score' ? { type: 'score', ...(params.scenario as object) } : (params.scenario as unknown as Record<string, unknown>),
    outputsStorageType: 'inline',
    resultsSummary: result?.resultsSummary ?? null,
    environmentGroupSnapshots: [],
    executedByUserId: row.created_by,
    applicationExecutionId: null,
    webhookUrl: row.webhook_url === null ? null : maskedWebhook(row.webhook_url),
    seed: params.seed,
    // Single-environment twins never offer csv (spec "Simulation run").
    exportFormats: status === 'completed' ? ['json'] : [],
  };
}
