/**
 * Connector import throughput (issue 6): a 1M-row PostgreSQL table imported through the API (connector ->
 * import job -> typed source with statistics) against `COPY (SELECT * FROM t) TO STDOUT` through pg in the same
 * run, alternating, median of the rounds. Also a 200k-row table with json and array columns (the JS ingest path).
 *
 *   node dist/bench/connectors/import.js [rows] [rounds]     (BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres;
 *                                                             CAUSA_IMPORT_* variables are passed to the service;
 *                                                             BENCH_LINK_MIB_S: the source reached over a link of this many MiB/s
 *                                                             per connection, as over a long distance)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { type BenchService, startService } from '../lib/service.js';
import { startThrottledLink } from '../lib/throttled-link.js';

const rows = Number(process.argv[2] ?? 1_000_000);
const rounds = Number(process.argv[3] ?? 3);
const base = new URL(process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const database = `causa_bench_${Date.now()}`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** CPU seconds used so far by the local PostgreSQL's processes (server and backends), from /proc: 0 elsewhere. */
function postgresCpuMs(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, then cutime and cstime: a backend's time moves to the server's once it ends and is reaped.
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

/** Runs `work`, answering its wall time and the CPU this process and PostgreSQL spent meanwhile. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; processCpuMs: number; postgresCpuMs: number }> {
  const cpu = process.cpuUsage();
  const pg0 = postgresCpuMs();
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  // The backend ends when its connection closes; its time is the server's once it has been reaped.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { value, ms, processCpuMs: (used.user + used.system) / 1000, postgresCpuMs: postgresCpuMs() - pg0 };
}

async function withClient<T>(db: string, work: (client: pg.Client) => Promise<T>, port?: number): Promise<T> {
  const url = new URL(base);
  url.pathname = `/${db}`;
  if (port !== undefined) url.port = String(port);
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The baseline: the whole table as CSV over the wire (through the link, when there is one), bytes counted and dropped. */
async function copyOut(table: string, port?: number): Promise<number> {
  return withClient(database, async (client) => {
    const started = performance.now();
    let bytes = 0;
    await pipeline(client.query(copyTo(`COPY (SELECT * FROM ${table}) TO STDOUT WITH (FORMAT csv, HEADER true)`)), new Writable({ write(chunk: Buffer, _e, done) { bytes += chunk.length; done(); } }));
    if (bytes === 0) throw new Error('COPY returned nothing');
    return performance.now() - started;
  }, port);
}

async function importThrough(service: BenchService, connectorId: string, table: string): Promise<{ ms: number; rowCount: number }> {
  const started = performance.now();
  // Manual ontology: the extraction an auto source queues would run beside the next round's import.
  const accepted = await service.call('POST', `/connectors/${connectorId}/import`, { workspaceId: service.ws, config: { table }, ontologyMode: 'manual' });
  if (accepted.status !== 202) throw new Error(JSON.stringify(accepted));
  for (;;) {
    const job = await service.call('GET', `/workspaces/${service.ws}/jobs/${accepted.data.jobId}`);
    if (job.data.status === 'completed') return { ms: performance.now() - started, rowCount: job.data.result.rowCount as number };
    if (job.data.status !== 'running' && job.data.status !== 'queued') throw new Error(JSON.stringify(job.data));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function main(): Promise<void> {
  await withClient(base.pathname.slice(1) || 'postgres', (client) => client.query(`CREATE DATABASE ${database}`));
  const linkMiBs = process.env.BENCH_LINK_MIB_S === undefined ? null : Number(process.env.BENCH_LINK_MIB_S);
  const link = linkMiBs === null ? null : await startThrottledLink({ host: base.hostname, port: Number(base.port || 5432) }, linkMiBs * 1024 ** 2);
  const service = await startService('connectors', {
    CAUSA_CONNECTOR_ALLOW_HOSTS: base.hostname,
    ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('CAUSA_IMPORT_') && entry[1] !== undefined)),
  });
  try {
    console.log(`creating ${rows.toLocaleString('en')} rows ...`);
    await withClient(database, async (client) => {
      await client.query(`CREATE TABLE typed AS SELECT g::bigint AS id, (ARRAY['north','south','east','west'])[1 + g % 4] AS region, round((random() * 1000)::numeric, 2) AS amount,
        (g % 97)::int AS qty, timestamptz '2024-01-01' + g * interval '1 minute' AS placed, g % 3 = 0 AS returned FROM generate_series(1, ${rows}) g`);
      const awkward = Math.round(rows / 5);
      await client.query(`CREATE TABLE awkward AS SELECT g::bigint AS id, jsonb_build_object('k', g % 10, 'tags', jsonb_build_array('a', g % 7)) AS doc, ARRAY[g % 5, g % 11] AS pair,
        'row ' || g || ', "quoted"' AS note FROM generate_series(1, ${awkward}) g`);
      await client.query('VACUUM ANALYZE typed; ');
      await client.query('VACUUM ANALYZE awkward');
    });
    const created = await service.call('POST', '/connectors', {
      name: 'bench', type: 'PostgreSQL',
      credentials: { host: base.hostname, port: link?.port ?? Number(base.port || 5432), database, user: decodeURIComponent(base.username) || 'postgres', ...(base.password === '' ? {} : { password: decodeURIComponent(base.password) }) },
    });
    const id = created.data.id as string;
    for (const table of ['typed', 'awkward']) {
      const copies: Array<Awaited<ReturnType<typeof measured>>> = [];
      const imports: Array<Awaited<ReturnType<typeof measured>>> = [];
      let count = 0;
      await importThrough(service, id, table); // warm-up: pool, engine, caches
      for (let round = 0; round < rounds; round += 1) {
        copies.push(await measured(() => copyOut(table, link?.port)));
        const result = await measured(() => importThrough(service, id, table));
        imports.push(result);
        count = (result.value as { rowCount: number }).rowCount;
      }
      // CPU of both sides (this process: the pg client or the whole service; PostgreSQL), steadier than wall time
      // on 2 cores: the ratio of the COPY's CPU to the import's is the import's throughput per core against COPY's.
      const cpu = (runs: typeof copies) => median(runs.map((run) => run.processCpuMs + run.postgresCpuMs));
      const copyMs = median(copies.map((run) => run.ms));
      const importMs = median(imports.map((run) => run.ms));
      console.log(JSON.stringify({
        table, rows: count, rounds, readConnections: service.context.config.importReadConnections, rangeMiB: service.context.config.importRangeBytes / 1024 ** 2, linkMiBs,
        copyMs: Math.round(copyMs), copyRowsPerSec: Math.round(count / (copyMs / 1000)),
        importMs: Math.round(importMs), importRowsPerSec: Math.round(count / (importMs / 1000)),
        ratioImportToCopy: Math.round((copyMs / importMs) * 100) / 100,
        copyCpuMs: Math.round(cpu(copies)), importCpuMs: Math.round(cpu(imports)),
        importServiceCpuMs: Math.round(median(imports.map((run) => run.processCpuMs))), importPostgresCpuMs: Math.round(median(imports.map((run) => run.postgresCpuMs))),
        cpuRatioImportToCopy: Math.round((cpu(copies) / cpu(imports)) * 100) / 100,
      }));
    }
  } finally {
    await service.close();
    await link?.close();
    await withClient(base.pathname.slice(1) || 'postgres', (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
}

await main();
