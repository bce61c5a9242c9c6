/**
 * What the service adds around the engine: the alarm network (bnlearn, 10k rows x 37 discrete columns) uploaded as
 * a CSV source, then `run-pipeline` (discover + train, no bootstrap) through the HTTP API, timed from submit to a
 * completed job; beside it, in the same run, the engine alone (`discoverStatic` then `fitCbn` on the same frame in
 * this thread). The ratio engine / service is the share of the job's wall time that is causal work; the rest is
 * reading the data, building the frame, the pool hand-off, evaluation, and recording the version.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadWasmKernels } from '../../src/compute/wasm.js';
import { fitCbn } from '../../src/engine/cbn/fit.js';
import { discoverStatic } from '../../src/engine/discovery/discover-static.js';
import { machineLine, median, writeSection } from '../lib/report.js';
import { startService } from '../lib/service.js';
import { REPO_ROOT, benchmarkDataDir, readTable } from './benchmark-data.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function main(): Promise<void> {
  const file = join(benchmarkDataDir(), 'bnlearn_discrete_10000/data/alarm.txt');
  const csv = readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s+/).join(',')).join('\n');
  const frame = readTable(file, 'categorical');
  const kernels = loadWasmKernels();

  const { ws, call, close } = await startService('pipeline');

  try {
    const source = (await call('POST', `/workspaces/${ws}/sources`, { name: 'alarm', dataFormat: 'Tabular' })).data.id;
    await call('POST', `/workspaces/${ws}/sources/${source}/upload?fileName=alarm.csv`, csv, 'text/csv');
    const service: number[] = [];
    const engine: number[] = [];
    for (let round = 0; round < ROUNDS + 1; round++) {
      const twin = (await call('POST', `/workspaces/${ws}/digital-twins`, { name: `alarm ${round}`, sourceId: source })).data;
      const started = performance.now();
      const job = (await call('POST', `/workspaces/${ws}/digital-twins/${twin.id}/run-pipeline`, { bootstrapSamples: 0 })).data;
      let status = job.status as string;
      while (!['completed', 'failed', 'cancelled'].includes(status)) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        status = (await call('GET', `/workspaces/${ws}/jobs/${job.jobId}`)).data.status;
      }
      if (status !== 'completed') throw new Error(`pipeline ${status}`);
      const serviceSeconds = (performance.now() - started) / 1000;
      const t0 = performance.now();
      const discovered = discoverStatic(frame, {}, kernels);
      fitCbn(frame, discovered.edges, {}, kernels);
      const engineSeconds = (performance.now() - t0) / 1000;
      if (round > 0) {
        service.push(serviceSeconds);
        engine.push(engineSeconds);
      }
    }
    const table = [
      '| path | median seconds (rounds) |',
      '|---|---:|',
      `| service: upload done -> run-pipeline submitted -> job completed | ${median(service).toFixed(2)} (${service.map((s) => s.toFixed(2)).join(', ')}) |`,
      `| engine alone: discoverStatic + fitCbn, same frame | ${median(engine).toFixed(2)} (${engine.map((s) => s.toFixed(2)).join(', ')}) |`,
      `| engine / service | ${(median(engine) / median(service)).toFixed(2)} |`,
    ].join('\n');
    writeSection(
      join(REPO_ROOT, 'BENCHMARKS.md'),
      '## Twin pipeline (bench/engine/pipeline.ts)',
      `## Twin pipeline (bench/engine/pipeline.ts)\n\nMeasured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineLine()}. ` +
        `bnlearn alarm, 10k rows x 37 columns, uploaded as CSV; run-pipeline with bootstrapSamples 0 (discovery, training on a held-out split for the evaluation, then on all rows). ` +
        `One warm-up round, then ${ROUNDS}. Rerun with \`make bench-pipeline\`.\n\n${table}\n`,
    );
    console.log(table);
  } finally {
    await close();
  }
}

await main();
