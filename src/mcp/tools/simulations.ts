/**
 * Simulation runs as MCP tools: submit any family the twin's kind answers (the scenario is the REST body's, checked
 * by the same validation), a question in plain English turned into a scenario, status and results, sweeps, scores.
 */
import { Type } from 'typebox';
import { ListSimulationsQuery, ScenarioFromQueryBody, ScenarioFromQuerySchema, ScoreBody, SimulationAcceptedSchema, SimulationRunSummarySchema, SubmitSimulationBody, SweepQuery, SweepSchema } from '../../../schemas/simulations.js';
import { IdOf, ListOf, type Tool, WorkspaceId, defineTool, followRun, listed } from '../tool.js';

const RunId = IdOf('Simulation run');
const TwinId = IdOf('Digital twin');
const VersionId = IdOf('Twin version');

export const simulationTools: Tool[] = [
  defineTool({
    name: 'scenario_from_query', title: 'Turn a question into a scenario', scope: 'simulations:execute', effect: 'read',
    description: 'Reads a question in plain English ("what if ads rise 10%?", "forecast sales for the next 2 weeks", "why did churn rise?") against a trained version and answers the scenario to submit, with how it was read. Nothing runs.',
    input: { workspaceId: WorkspaceId, twinId: TwinId, versionId: VersionId, ...ScenarioFromQueryBody.properties }, output: ScenarioFromQuerySchema,
    run: ({ services, principal, args }) => services.simulations.scenarioFromQuery(principal, args.workspaceId, args.twinId, args.versionId, args.query),
  }),
  defineTool({
    name: 'submit_simulation', title: 'Ask a twin a question', scope: 'simulations:execute', effect: 'long',
    description: 'Submits a scenario (prediction, intervention, optimisation, counterfactual, explanation, root cause, anomaly scan, forecast and their temporal and panel forms: the families the twin\'s kind answers; '
      + 'scenario_from_query writes one) to a trained version. Answers the run id; read it with get_simulation until completed.',
    input: { workspaceId: WorkspaceId, ...SubmitSimulationBody.properties }, output: SimulationAcceptedSchema,
    intent: (args) => `run a ${String((args.scenario as { type?: unknown } | undefined)?.type ?? 'simulation')} simulation on twin ${String(args.digitalTwinId)}`,
    follow: followRun,
    run: ({ services, principal, args }) => {
      const { workspaceId, ...body } = args;
      return services.simulations.submit(principal, workspaceId, body as never);
    },
  }),
  defineTool({
    name: 'get_simulation', title: 'Read a simulation run', scope: 'simulations:read', effect: 'read',
    description: 'A run: status, progress, the scenario, and when completed its outputs (results, details) and its plain-language resultsSummary.',
    input: { workspaceId: WorkspaceId, runId: RunId },
    run: async ({ services, principal, args }) => JSON.parse(await services.simulations.get(principal, args.workspaceId, args.runId)) as unknown,
  }),
  defineTool({
    name: 'list_simulations', title: 'List simulation runs', scope: 'simulations:read', effect: 'read',
    description: 'The runs of a workspace, newest first (filter by status, scenarioType, digitalTwinId).',
    input: { workspaceId: WorkspaceId, ...ListSimulationsQuery.properties }, output: ListOf(SimulationRunSummarySchema),
    run: async ({ services, principal, args }) => {
      const { workspaceId, ...query } = args;
      return listed(await services.simulations.list(principal, workspaceId, query));
    },
  }),
  defineTool({
    name: 'get_sweep', title: 'Read a dose-response curve', scope: 'simulations:read', effect: 'read',
    description: 'The curve of a range intervention: per swept value, the outcome\'s mean and interval (panel runs: name the environment).',
    input: { workspaceId: WorkspaceId, runId: RunId, ...SweepQuery.properties }, output: SweepSchema,
    run: ({ services, principal, args }) => {
      const { workspaceId, runId, ...query } = args;
      return services.simulations.sweep(principal, workspaceId, runId, query);
    },
  }),
  defineTool({
    name: 'score_rows', title: 'Score rows against targets', scope: 'simulations:execute', effect: 'long',
    description: 'Scores rows against targets on a trained version (on a multi-environment twin each row by the environment it names; on a temporal twin or temporal panel the rows are steps in time order): meets, misses with the fewest changes that would meet, unscorable. Answers the run id.',
    input: { workspaceId: WorkspaceId, twinId: TwinId, versionId: VersionId, ...ScoreBody.properties }, output: SimulationAcceptedSchema,
    intent: (args) => `score ${scoredRows(args)} on twin ${String(args.twinId)}`,
    follow: followRun,
    run: ({ services, principal, args }) => {
      const { workspaceId, twinId, versionId, ...body } = args;
      return services.simulations.submitScore(principal, workspaceId, twinId, versionId, body as never);
    },
  }),
  defineTool({
    name: 'cancel_simulation', title: 'Cancel a simulation run', scope: 'simulations:execute', effect: 'destructive', idempotent: true,
    description: 'Cancels a queued or running simulation run.',
    input: { workspaceId: WorkspaceId, runId: RunId }, output: Type.Object({ runId: Type.String(), status: Type.String() }),
    intent: (args) => `cancel simulation run ${String(args.runId)}`,
    run: ({ services, principal, args }) => services.simulations.cancel(principal, args.workspaceId, args.runId),
  }),
];

/** What a score_rows call scores, as its intent says it: a count of inline rows, or the data it reads. */
function scoredRows(args: Record<string, unknown>): string {
  const table = args.rowsTable as { rows?: unknown } | undefined;
  const inline = Array.isArray(args.rows) ? args.rows : Array.isArray(table?.rows) ? table.rows : null;
  if (inline !== null) return `${inline.length} rows`;
  const from = args.rowsFrom as { datasetId?: string; sourceId?: string } | undefined;
  return from?.datasetId !== undefined ? `the rows of dataset ${from.datasetId}` : from?.sourceId !== undefined ? `the rows of source ${from.sourceId}` : 'no rows';
}
