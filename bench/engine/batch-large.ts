/**
 * Batches at 10 million rows (issue 19, "Shown by"): a 20-node linear twin learned through the API, BENCH_ROWS rows
 * (default 10,000,000) written as a CSV file and uploaded by curl from its own process, then a batch prediction and a
 * scoring run by reference over the source. Reports time, rows/s and the service process's memory (JS heap and
 * buffers, RSS) during each run, and replaces the section "## Batches at 10 million rows" of BENCHMARKS.md.
 * The service runs in this process (in-process calls for setup; the upload over a real listener).
 *
 * Run: `npm run build && node dist/bench/engine/batch-large.js` (`make bench-batch-large`; about 6 minutes, 1.5 GB of
 * temporary file). Env: BENCH_ROWS, BENCH_WRITE=0.
 */
import { execFile } from 'node:child_process';
import { createWriteStream, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { modelEdges, randomModel, sampleModel } from '../../src/engine/simulate.js';
import type { Frame } from '../../src/engine/types.js';
import { machineLine, writeSection } from '../lib/report.js';
import { startService } from '../lib/service.js';
import { REPO_ROOT } from './benchmark-data.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const SECTION = '## Batches at 10 million rows (bench/engine/batch-large.ts)';

const csvLines = (frame: Frame, leaveOut: string) => {
  const columns = frame.columns.filter((c) => c.name !== leaveOut && c.kind === 'continuous');
  const lines: string[] = [];
  for (let r = 0; r < frame.nRows; r++) lines.push(columns.map((c) => (c.kind === 'continuous' ? c.values[r]!.toFixed(4) : '')).join(','));
  return lines.join('\n');
};

function curlUpload(url: string, key: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'POST', '-H', `authorization: Bearer ${key}`, '-H', 'content-type: text/csv', '-H', 'expect:', '-T', path, url], (error, stdout) => (error ? reject(error) : resolve(Number(stdout))));
  });
}

async function main(): Promise<void> {
  const { app, ws, call, close } = await startService('batch-large');
  const path = join(tmpdir(), `causa-batch-large-${process.pid}.csv`);
  try {
    const until = async (url: string) => {
      for (;;) {
        const { data } = await call('GET', url);
        if (['completed', 'failed', 'cancelled'].includes(data.status as string)) return data;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const scm = randomModel(20, 4, 20);
    const training = sampleModel(scm, 5000, 21);
    const outcome = scm.nodes[scm.order[19]!]!.name;
    const learned = (await call('POST', `/workspaces/${ws}/sources`, { name: 'linear 20', dataFormat: 'Tabular', ontologyMode: 'manual' })).data.id;
    await call('POST', `/workspaces/${ws}/sources/${learned}/upload?fileName=linear.csv`, `${training.columns.map((c) => c.name).join(',')}\n${csvLines(training, '')}`, 'text/csv');
    const twin = (await call('POST', `/workspaces/${ws}/digital-twins`, { name: 'linear 20', sourceId: learned })).data;
    await call('PATCH', `/workspaces/${ws}/digital-twins/${twin.id}/versions/${twin.versionId}/graph/fixed`, { addEdges: modelEdges(scm) });
    await until(`/workspaces/${ws}/jobs/${(await call('POST', `/workspaces/${ws}/digital-twins/${twin.id}/run-pipeline`, { bootstrapSamples: 0 })).data.jobId}`);

    const out = createWriteStream(path);
    out.write(`${training.columns.filter((c) => c.name !== outcome).map((c) => c.name).join(',')}\n`);
    for (let done = 0; done < ROWS; done += 500_000) {
      if (!out.write(`${csvLines(sampleModel(scm, Math.min(500_000, ROWS - done), 100 + done), outcome)}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    out.end();
    await finished(out);
    const rows = (await call('POST', `/workspaces/${ws}/sources`, { name: 'rows', dataFormat: 'Tabular', ontologyMode: 'manual' })).data.id;
    const key = (await call('POST', '/api-keys', { name: 'upload', scopes: ['sources:write', 'sources:read'] })).data.key as string;
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const t0 = performance.now();
    const status = await curlUpload(`http://127.0.0.1:${port}/api/v1/workspaces/${ws}/sources/${rows}/upload`, key, path);
    if (status !== 201) throw new Error(`the upload answered ${status}`);
    const uploadS = (performance.now() - t0) / 1000;

    const mean = training.columns.find((c) => c.name === outcome)! as { values: Float64Array };
    const average = mean.values.reduce((a, b) => a + b, 0) / mean.values.length;
    const lines: string[] = [];
    const runs: Array<[string, () => Promise<{ data: Record<string, any> }>]> = [
      ['batch prediction by reference (`rowsFrom` the source; results a table)', () => call('POST', `/workspaces/${ws}/simulations`, { digitalTwinId: twin.id, digitalTwinVersionId: twin.versionId, scenario: { type: 'prediction', rowsFrom: { sourceId: rows }, targetVars: [outcome] } })],
      ['scoring by reference against one target at its mean (about half miss and get a change search)', () => call('POST', `/workspaces/${ws}/digital-twins/${twin.id}/versions/${twin.versionId}/score`, { rowsFrom: { sourceId: rows }, targets: [{ variable: outcome, value: average, matchMode: 'orMore' }] })],
    ];
    const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
    for (const [label, submit] of runs) {
      const before = process.memoryUsage();
      let peakJs = 0;
      let peakRss = 0;
      const sampler = setInterval(() => {
        const memory = process.memoryUsage();
        peakJs = Math.max(peakJs, memory.heapUsed + memory.arrayBuffers);
        peakRss = Math.max(peakRss, memory.rss);
      }, 100);
      const started = performance.now();
      const accepted = await submit();
      const done = await until(`/workspaces/${ws}/simulations/${accepted.data.runId}/status`);
      clearInterval(sampler);
      if (done.status !== 'completed') throw new Error(`${label}: ${done.status} ${done.error ?? ''}`);
      const s = (performance.now() - started) / 1000;
      lines.push(`| ${label} | ${s.toFixed(1)} s | ${Math.round(ROWS / s).toLocaleString('en')} | ${mib(before.heapUsed + before.arrayBuffers)} -> ${mib(peakJs)} MiB | ${mib(before.rss)} -> ${mib(peakRss)} MiB |`);
      process.stderr.write(`${lines.at(-1)}\n`);
    }
    const table = ['| run | time | rows/s | JS heap and buffers (before -> peak) | process RSS (before -> peak) |', '|---|---:|---:|---|---|', ...lines].join('\n');
    console.log(table);
    if (process.env.BENCH_WRITE === '0') return;
    writeSection(
      join(REPO_ROOT, 'BENCHMARKS.md'),
      SECTION,
      `${SECTION}\n\nMeasured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineLine()}. ${ROWS.toLocaleString('en')} rows of a 20-node ` +
        `linear SCM (19 input columns) uploaded as a CSV file by curl from its own process (${uploadS.toFixed(1)} s), then each run by reference ` +
        `over that source, from submit to the status poll that sees it completed. Memory is the service process's (the runs' workers are ` +
        `threads of it), sampled every 100 ms. Rerun with \`make bench-batch-large\`.\n\n${table}\n\n` +
        'Reading: a batch reads its rows chunk by chunk straight from the source (the next chunk after the last row key read) and ' +
        'writes its answers chunk by chunk, so the JS heap holds two chunks per worker (the one answered, one waiting) whatever the batch size; the RSS growth is the ' +
        'data engine reading the source and writing the results table. Scoring costs more per row than prediction: every row that ' +
        'misses gets a re-simulated change search.\n',
    );
  } finally {
    rmSync(path, { force: true });
    await close();
  }
}

await main();
