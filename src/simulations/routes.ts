import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { IdString, TwinVersionParams, WorkspaceParams, dataEnvelope, listEnvelope, literals, ref } from '../../schemas/common.js';
import {
  CancelledRunSchema,
  ListSimulationsQuery,
  OutputsSchema,
  ScenarioFromQueryBody,
  ScenarioFromQuerySchema,
  ScoreBody,
  ScoreQuery,
  ScoreSchema,
  SimulationAcceptedSchema,
  SimulationRunSchema,
  SimulationRunStatusSchema,
  SimulationRunSummarySchema,
  SubmitSimulationBody,
  SweepQuery,
  SweepSchema,
} from '../../schemas/simulations.js';
import type { SimulationService } from './service.js';

const RunParams = Type.Object({ wsId: IdString('Workspace id'), id: IdString('Simulation run id') });
const ExportParams = Type.Object({ wsId: IdString('Workspace id'), id: IdString('Simulation run id'), format: literals(['json', 'csv'] as const, '`json` for every completed run; `csv` only for panel forecast-shaped runs') });
const RowsExportParams = Type.Object({ wsId: IdString('Workspace id'), id: IdString('Simulation run id'), format: literals(['csv', 'ndjson', 'parquet'] as const, 'The file format') });
const RowsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 50, description: 'Rows per page, 1 to 10,000' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Opaque cursor from a previous page' })),
}, { additionalProperties: false });
const BASE = '/workspaces/:wsId/simulations';
const VERSION = '/workspaces/:wsId/digital-twins/:id/versions/:vId';
/** Batch questions carry rows (up to 100,000 per request): far more than the 1 MiB of an ordinary JSON body. */
export const SIMULATION_BODY_LIMIT = 64 * 1024 * 1024;

/**
 * Sends `{"data": <json>}` from JSON text the service built around stored outputs, bypassing the schema serializer
 * (the text is already in the documented shape; re-serializing 100k result records would cost seconds).
 */
function sendData(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(`{"data":${json}}`);
}

export function simulationRoutes(app: FastifyInstance, simulations: SimulationService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Simulations'];

  api.get(BASE, {
    config: { scope: 'simulations:read' },
    schema: {
      operationId: 'listSimulations',
      summary: 'List simulation runs, newest first',
      description: 'Filters `status`, `scenarioType`, `digitalTwinId`; `pagination.total` counts the runs matching them. Result payloads are left out (read a run or its results).',
      tags,
      params: WorkspaceParams,
      querystring: ListSimulationsQuery,
      response: { 200: listEnvelope(ref(SimulationRunSummarySchema)) },
    },
  }, async (request) => {
    const page = await simulations.list(request.principal, request.params.wsId, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.post(BASE, {
    bodyLimit: SIMULATION_BODY_LIMIT,
    config: { scope: 'simulations:execute', problems: [409] },
    schema: {
      operationId: 'submitSimulation',
      summary: 'Ask a trained twin version a question (asynchronous)',
      description:
        'Validates the scenario against the version (422 with the offending member located) and answers 202; the run moves ' +
        '`pending` -> `configuring` -> `configured` -> `running` -> `completed` | `failed` | `cancelled`. An accepted scenario can ' +
        'still fail in the engine (e.g. a metric averaging a text column): the run ends `failed` with `error`. 409 when the version ' +
        'is not trained. `webhookUrl` is called once with `simulation.completed|failed|cancelled` and `runId`. Bodies up to 64 MiB ' +
        '(100,000 rows per sample list).',
      tags,
      params: WorkspaceParams,
      body: SubmitSimulationBody,
      response: { 202: dataEnvelope(ref(SimulationAcceptedSchema)) },
    },
  }, async (request, reply) => {
    reply.code(202);
    return { data: await simulations.submit(request.principal, request.params.wsId, request.body) };
  });

  api.get(`${BASE}/:id`, {
    config: { scope: 'simulations:read' },
    schema: { operationId: 'getSimulation', summary: 'Read a simulation run (with its outputs once completed)', tags, params: RunParams, response: { 200: dataEnvelope(ref(SimulationRunSchema)) } },
  }, async (request, reply) => sendData(reply, await simulations.get(request.principal, request.params.wsId, request.params.id)));

  api.get(`${BASE}/:id/status`, {
    config: { scope: 'simulations:read' },
    schema: {
      operationId: 'getSimulationStatus',
      summary: 'Poll a run: its record without the scenario and outputs',
      description: 'Status, progress, error, summary and storage of a run, whatever the size of its scenario or outputs (a batch of 100,000 inline rows is megabytes): what a client waiting for a run should poll.',
      tags,
      params: RunParams,
      response: { 200: dataEnvelope(ref(SimulationRunStatusSchema)) },
    },
  }, async (request) => ({ data: await simulations.status(request.principal, request.params.wsId, request.params.id) }));

  api.get(`${BASE}/:id/results`, {
    config: { scope: 'simulations:read' },
    schema: {
      operationId: 'getSimulationResults',
      summary: 'The outputs of a completed run, keyed by version label',
      description: '404 while the run has no outputs (unfinished, failed or cancelled).',
      tags,
      params: RunParams,
      response: { 200: dataEnvelope(OutputsSchema) },
    },
  }, async (request, reply) => sendData(reply, await simulations.results(request.principal, request.params.wsId, request.params.id)));

  api.post(`${BASE}/:id/cancel`, {
    config: { scope: 'simulations:execute' },
    schema: {
      operationId: 'cancelSimulation',
      summary: 'Cancel a run still in flight',
      description: 'A pending or running run becomes `cancelled` at once (its work stops, nothing is recorded, the webhook says `simulation.cancelled`). A run that already ended answers its state unchanged.',
      tags,
      params: RunParams,
      response: { 200: dataEnvelope(CancelledRunSchema) },
    },
  }, async (request) => ({ data: await simulations.cancel(request.principal, request.params.wsId, request.params.id) }));

  api.get(`${BASE}/:id/sweep`, {
    config: { scope: 'simulations:read', problems: [409] },
    schema: {
      operationId: 'getSimulationSweep',
      summary: 'The dose-response curve of a range intervention',
      description:
        'One point per grid value: swept value, mean, standard deviation and confidence interval. Curves exist per metric and per ' +
        'outcome variable; `metric` is required to read a curve when there are several (omit it to list them with the digest). ' +
        '409 while the run executes; 404 when it has no sweep.',
      tags,
      params: RunParams,
      querystring: SweepQuery,
      response: { 200: dataEnvelope(ref(SweepSchema)) },
    },
  }, async (request) => ({ data: await simulations.sweep(request.principal, request.params.wsId, request.params.id, request.query) }));

  api.get(`${BASE}/:id/score`, {
    config: { scope: 'simulations:read', problems: [409] },
    schema: {
      operationId: 'getSimulationScore',
      summary: 'The digest and one page of per-row detail of a scoring run',
      description: '409 while the run executes; 404 when the run is not a scoring run.',
      tags,
      params: RunParams,
      querystring: ScoreQuery,
      response: { 200: dataEnvelope(ref(ScoreSchema)) },
    },
  }, async (request) => ({ data: await simulations.score(request.principal, request.params.wsId, request.params.id, request.query) }));

  api.get(`${BASE}/:id/rows`, {
    config: { scope: 'simulations:read', problems: [409] },
    schema: {
      operationId: 'listSimulationRows',
      summary: 'The row results of a batch run, by keyset pages',
      description:
        'A batch prediction (`rowsFrom`, or `resultsStorage: datastore`) keeps its row results as a table in the data store (`outputsStorageType` `datastore`). ' +
        'Each row: `row` (its position in the input, from 0), the input columns named in `rowsFrom.keepColumns`, then per target `<target>_predicted`, `<target>_std`, ' +
        '`<target>_lower`, `<target>_upper` (a categorical target: `<target>_predicted`, the most likely class, and `<target>_probability`); null where a row has no answer. ' +
        'A scoring run (POST .../versions/{vId}/score) always keeps one: `verdict`, `<target>_predicted`, `drivers` and `changes` (JSON text), `reachable`. ' +
        'In row order; the cursor carries the last row number, so a late page costs what the first does. 409 while the run executes; 404 when the run has no row results table.',
      tags,
      params: RunParams,
      querystring: RowsQuery,
      response: { 200: listEnvelope(Type.Record(Type.String(), Type.Unknown(), { description: 'One row: `row`, kept columns, result columns' })) },
    },
  }, async (request) => {
    const page = await simulations.rows(request.principal, request.params.wsId, request.params.id, request.query);
    return { data: page.items, pagination: page.pagination };
  });

  api.get(`${BASE}/:id/rows/export/:format`, {
    config: { scope: 'exports:read', problems: [409] },
    schema: {
      operationId: 'exportSimulationRows',
      summary: 'Stream the row results of a batch run as a file',
      description:
        '`csv` (with a header), `ndjson` (one JSON object per line) or `parquet`: every row of the results table (the columns of GET .../rows) in row order, streamed ' +
        'without being held whole by the service. 409 while the run executes; 404 when the run has no row results table.',
      tags,
      params: RowsExportParams,
      response: {
        200: {
          description: 'The file, with Content-Disposition naming it',
          content: {
            'text/csv': { schema: Type.String({ format: 'binary' }) },
            'application/x-ndjson': { schema: Type.String({ format: 'binary' }) },
            'application/vnd.apache.parquet': { schema: Type.String({ format: 'binary' }) },
          },
        } as never,
      },
    },
  }, async (request, reply) => {
    // A client that goes away stops the query in the engine.
    const abort = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const file = await simulations.exportRows(request.principal, request.params.wsId, request.params.id, request.params.format, abort.signal);
    reply.header('content-disposition', `attachment; filename="simulation-${request.params.id}-rows.${file.extension}"`);
    return reply.type(file.type).send(file.stream);
  });

  api.get(`${BASE}/:id/export/:format`, {
    config: { scope: 'exports:read' },
    schema: {
      operationId: 'exportSimulation',
      summary: 'Export a completed run',
      description:
        '`json`: run metadata, scenario and outputs, for every scenario type. `csv`: the panel result artifacts of a completed forecast-shaped run on a multi-environment twin ' +
        '(`prediction` and `panel_forecast`; `exportFormats` lists `csv` then), streamed as one wide file: `environment`, `timestamp` (empty for prediction), `row` (the sample row or forecast step), then per target ' +
        '`<target>`, `<target>_lower`, `<target>_upper` (a categorical target: the most likely class and `<target>_probability`), ordered by environment and row. ' +
        '400 for every other run, while the run has not completed, and once the artifacts are gone (the twin was deleted).',
      tags,
      params: ExportParams,
      response: {
        200: {
          description: 'The json bundle, or the csv file with Content-Disposition naming it',
          content: {
            'application/json': { schema: Type.Object({ run: Type.Record(Type.String(), Type.Unknown()), scenario: Type.Record(Type.String(), Type.Unknown()), outputs: OutputsSchema, exportedAt: Type.String(), format: Type.Literal('json') }) },
            'text/csv': { schema: Type.String({ format: 'binary' }) },
          },
        } as never,
      },
    },
  }, async (request, reply) => {
    if (request.params.format === 'csv') {
      // A client that goes away stops the query in the engine.
      const abort = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) abort.abort();
      });
      const file = await simulations.exportCsv(request.principal, request.params.wsId, request.params.id, abort.signal);
      reply.header('content-disposition', `attachment; filename="simulation-${request.params.id}.csv"`);
      return reply.type('text/csv; charset=utf-8').send(file);
    }
    const bundle = await simulations.exportRun(request.principal, request.params.wsId, request.params.id, request.params.format);
    reply.header('content-disposition', `attachment; filename="simulation-${request.params.id}.json"`);
    return reply.type('application/json; charset=utf-8').send(bundle as never);
  });

  api.post(`${VERSION}/score`, {
    bodyLimit: SIMULATION_BODY_LIMIT,
    config: { scope: 'simulations:execute', problems: [409] },
    schema: {
      operationId: 'scoreRows',
      summary: 'Score rows against targets (batch; asynchronous)',
      description:
        'Each row’s targets are predicted from its other values and judged (`meets`, `misses`, `unscorable`); rows that miss get the fewest ' +
        'changes (re-simulated) that would meet them. Rows come inline (`rows`, records; or `rowsTable`, columnar JSON `{columns, rows}`, each row ' +
        'one value per column, null missing) or by reference (`rowsFrom`: a dataset or source of the workspace, ' +
        'filtered and limited, read by the run). Rows are scored in chunks on every pool worker and written as the run\'s results table in the data store ' +
        '(`verdict`, `<target>_predicted`, `drivers`, `changes`, `reachable`, and any `keepColumns`). Answers 202 with a run; read it with ' +
        'GET .../simulations/{runId}/score (digest and pages), or stream it with GET .../simulations/{runId}/rows/export/{format}. ' +
        'Every twin kind scores. On a static panel each row is scored with the mechanisms of the environment its environment columns name (inline: ' +
        'every row names an environment of the version, or none does and all use the pooled mechanisms; by reference: the data must have the columns, ' +
        'and a row naming an environment the twin never saw uses the pooled mechanisms, counted in the run\'s `details.unknownEnvironmentRows`); each ' +
        'row summary starts with its environment key (or `no environment of the twin`). On a temporal twin the rows are steps: inline in time order (times under the time column or `timestamp`, or none: ' +
        'the last steps of the data) or by reference (ordered by the twin\'s time column, which the data must have; rows without a time are left out, ' +
        'rows that share a time answer 422), ' +
        'each scored at its own step from the same step\'s values and the steps before it (the rows before it; before the ' +
        'first row, the data the version keeps; a step the rows skip is missing, and a row whose target needs it is `unscorable`); drivers may name past values (`sales⟨t-1⟩`) and seasonal terms, and ' +
        'changes fall on the row\'s own values only. A temporal panel\'s rows each name their environment and are scored as a temporal twin\'s, each ' +
        'environment\'s rows after its own past (by reference: ordered by environment, then time; a row naming no environment of the twin is `unscorable`).',
      tags,
      params: TwinVersionParams,
      body: ScoreBody,
      response: { 202: dataEnvelope(ref(SimulationAcceptedSchema)) },
    },
  }, async (request, reply) => {
    reply.code(202);
    return { data: await simulations.submitScore(request.principal, request.params.wsId, request.params.id, request.params.vId, request.body) };
  });

  api.post(`${VERSION}/scenario-from-query`, {
    config: { scope: 'simulations:execute', problems: [409] },
    schema: {
      operationId: 'scenarioFromQuery',
      summary: 'Turn a plain-English question into a scenario for this version',
      description: 'Maps the question onto the version’s variables (no external service). 422 says what could not be mapped; 409 when the version is not trained.',
      tags,
      params: TwinVersionParams,
      body: ScenarioFromQueryBody,
      response: { 200: dataEnvelope(ref(ScenarioFromQuerySchema)) },
    },
  }, async (request) => ({ data: await simulations.scenarioFromQuery(request.principal, request.params.wsId, request.params.id, request.params.vId, request.body.query) }));
}
