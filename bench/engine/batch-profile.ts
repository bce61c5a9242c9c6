/** Temporary: where a 100k-row batch by reference spends its time. */
import { randomModel, sampleModel } from '../../src/engine/simulate.js';
import { startService } from '../lib/service.js';

const { ws, call, close, context } = await startService('batchprof');
const scm = randomModel(20, 4, 20);
const frame = sampleModel(scm, 5000, 21);
const csv = [frame.columns.map((c) => c.name).join(','), ...Array.from({ length: frame.nRows }, (_, r) => frame.columns.map((c) => (c.kind === 'continuous' ? c.values[r]!.toFixed(5) : '')).join(','))].join('\n');
const source = (await call('POST', `/workspaces/${ws}/sources`, { name: 'l', dataFormat: 'Tabular' })).data.id;
await call('POST', `/workspaces/${ws}/sources/${source}/upload?fileName=l.csv`, csv, 'text/csv');
const twin = (await call('POST', `/workspaces/${ws}/digital-twins`, { name: 'l', sourceId: source })).data;
const edges = scm.nodes.flatMap((node) => node.parents.map((q) => ({ source: scm.nodes[q]!.name, target: node.name })));
await call('PATCH', `/workspaces/${ws}/digital-twins/${twin.id}/versions/${twin.versionId}/graph/fixed`, { addEdges: edges });
const job = (await call('POST', `/workspaces/${ws}/digital-twins/${twin.id}/run-pipeline`, { bootstrapSamples: 0 })).data;
for (;;) { const j = (await call('GET', `/workspaces/${ws}/jobs/${job.jobId}`)).data; if (j.status === 'completed') break; await new Promise((r) => setTimeout(r, 50)); }
const outcome = scm.nodes[scm.order[19]!]!.name;
const names = frame.columns.map((c) => c.name).filter((n) => n !== outcome);
const lines = [names.join(',')];
for (let r = 0; r < 100_000; r++) lines.push(names.map((n) => (frame.columns.find((c) => c.name === n) as { values: Float64Array }).values[r % 5000]!.toFixed(4)).join(','));
const rows = (await call('POST', `/workspaces/${ws}/sources`, { name: 'rows', dataFormat: 'Tabular', ontologyMode: 'manual' })).data.id;
await call('POST', `/workspaces/${ws}/sources/${rows}/upload?fileName=rows.csv`, lines.join('\n'), 'text/csv');
const table = { columns: names, rows: Array.from({ length: 100_000 }, (_, r) => names.map((n) => Number((frame.columns.find((c) => c.name === n) as { values: Float64Array }).values[r % 5000]!.toFixed(4)))) };
const sample = table.rows.map((row) => Object.fromEntries(names.map((n, i) => [n, row[i]])));
const way = process.env.WAY ?? 'reference';
const scenario = way === 'reference' ? { type: 'prediction', rowsFrom: { sourceId: rows }, targetVars: [outcome] } : way === 'table' ? { type: 'prediction', sampleTable: table, targetVars: [outcome] } : { type: 'prediction', sample, targetVars: [outcome] };
for (let round = 0; round < 4; round++) {
  const body = JSON.stringify({ digitalTwinId: twin.id, digitalTwinVersionId: twin.versionId, scenario });
  const t0 = performance.now();
  const submitted = await call("POST", `/workspaces/${ws}/simulations`, body); if (submitted.status !== 202) console.log(JSON.stringify(submitted).slice(0, 500)); const run = submitted.data.runId;
  const t1 = performance.now();
  for (;;) { const j = await context.meta.db.selectFrom('jobs').select(['status', 'error']).where('id', '=', run).executeTakeFirstOrThrow(); if (['completed', 'failed'].includes(j.status)) { if (j.status === 'failed') console.log(j.error); break; } await new Promise((r) => setTimeout(r, 5)); }
  console.log('round', round, 'submit', (t1 - t0).toFixed(0), 'total', (performance.now() - t0).toFixed(0), 'ms');
}
await close();
