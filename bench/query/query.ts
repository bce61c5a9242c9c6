/**
 * The anchor query facility beside the same SQL run directly on the data store, in the same run: a grouped query
 * over BENCH_QUERY_ROWS rows (default 10M) of one uploaded source, through `POST /api/v1/workspaces/{ws}/query`
 * (authentication, the workspace's catalog and ontology read, planning, compilation onto the dataset's query,
 * paging with the total in the same query) against `SELECT ... GROUP BY` on the source's table.
 * Goal (issue 18): the facility at least 0.8 of the direct query's speed.
 *
 * Run: `make bench-query`. Env: BENCH_QUERY_ROWS, BENCH_RUNS (default 7), BENCH_WRITE=0.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../engine/benchmark-data.js';
import { machineLine, writeSection } from '../lib/report.js';
import { startService } from '../lib/service.js';

const SECTION = '## Anchor query facility (bench/query/query.ts)';
const ROWS = Number(process.env.BENCH_QUERY_ROWS ?? 10_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const REGIONS = 50;

const dir = mkdtempSync(join(tmpdir(), 'causa-bench-query-'));
const file = join(dir, 'sales.csv');
await new Promise<void>((resolve, reject) => {
  const out = createWriteStream(file);
  out.on('error', reject);
  out.write('region,amount,day,units\n');
  let i = 0;
  let seed = 12345;
  const write = () => {
    let ok = true;
    while (i < ROWS && ok) {
      let chunk = '';
      for (let j = 0; j < 10_000 && i < ROWS; j++, i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        const high = seed >>> 8; // the low bits of a power-of-two LCG cycle quickly
        const day = 1 + (high % 28);
        chunk += `r${high % REGIONS},${((high % 100_000) / 100).toFixed(2)},2024-03-${String(day).padStart(2, '0')},${(high >>> 4) % 9}\n`;
      }
      ok = out.write(chunk);
    }
    if (i < ROWS) out.once('drain', write);
    else out.end(resolve);
  };
  write();
});

const service = await startService('query');
const { app, context, ws, call } = service;
const source = await call('POST', `/workspaces/${ws}/sources`, { name: 'sales', ontologyMode: 'manual' });
const key = (await call('POST', '/api-keys', { name: 'query bench', scopes: ['sources:write', 'datasets:read', 'datasets:write'], rateLimit: 1_000_000 })).data.key as string;
const upload = await app.inject({ method: 'POST', url: `/api/v1/workspaces/${ws}/sources/${source.data.id}/upload`, headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' }, payload: createReadStream(file) });
if (upload.statusCode !== 201) throw new Error(`upload: ${upload.statusCode} ${upload.body.slice(0, 300)}`);
const dataset = await call('POST', `/workspaces/${ws}/datasets`, { name: 'sales', sources: [{ id: source.data.id }] });
if (dataset.status !== 201) throw new Error(`dataset: ${JSON.stringify(dataset)}`);

const query = 'SELECT region, sum(amount) AS revenue, count(*) AS n, avg(units) AS units FROM sales GROUP BY region ORDER BY region';
const direct = (sql: { table(id: string): string }) => `SELECT region, sum(amount) AS revenue, count() AS n, avg(units) AS units FROM ${sql.table(source.data.id)} GROUP BY region ORDER BY region`;
const organisationId = (await call('GET', '/me')).data.organisationId as string;
const viaFacility = async () => {
  const response = await app.inject({ method: 'POST', url: `/api/v1/workspaces/${ws}/query`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: JSON.stringify({ query, limit: 1000 }) });
  const body = JSON.parse(response.body) as { data: { ok: boolean; rows: Array<Record<string, unknown>> } };
  if (!body.data.ok) throw new Error(`query: ${response.body.slice(0, 500)}`);
  return body.data.rows;
};
const viaStore = () => context.data().query<Record<string, unknown>>(organisationId, direct);
/** The direct query under a dataset's one rule: rows past the last recorded batch are not read (a bound on the row key). */
const bounded = (sql: { table(id: string): string }) => direct(sql).replace(' GROUP BY', ` WHERE _causa_row <= ${ROWS - 1} GROUP BY`);
const viaStoreBounded = () => context.data().query<Record<string, unknown>>(organisationId, bounded);

// Same answer first.
const [a, b] = [await viaFacility(), await viaStore()];
if (a.length !== REGIONS || b.length !== a.length || a.some((row, i) => Number(row.n) !== Number(b[i]!.n))) throw new Error(`the facility and the direct query disagree: ${JSON.stringify(a.slice(0, 3))} ${JSON.stringify(b.slice(0, 3))} (${a.length}, ${b.length})`);

const timings = { facility: [] as number[], direct: [] as number[], bounded: [] as number[] };
for (let run = 0; run < RUNS; run++) {
  for (const [name, work] of [['facility', viaFacility], ['direct', viaStore], ['bounded', viaStoreBounded]] as const) {
    const start = process.hrtime.bigint();
    await work();
    timings[name].push(Number(process.hrtime.bigint() - start) / 1e6);
  }
}

// Canonical values: a Region concept whose value mappings name each code ("r7" -> "Region 7"), enriched, so the
// facility reads the column through its value map; beside the same SQL with the same transform, on the store.
const regions = Array.from({ length: REGIONS }, (_, i) => ({ canonicalValue: `Region ${i}`, aliases: [`r${i}`] }));
const concept = await call('POST', `/workspaces/${ws}/ontology/concepts`, { name: 'Region', valueMappings: regions, fieldMappings: [{ sourceId: source.data.id, field: 'region' }] });
const enrichment = await call('POST', `/workspaces/${ws}/ontology/concepts/${concept.data.id}/enrichments`, {});
for (let status = ''; status !== 'completed'; ) {
  await new Promise((done) => setTimeout(done, 100));
  status = (await call('GET', `/workspaces/${ws}/jobs/${enrichment.data.jobId}`)).data.status as string;
  if (status === 'failed' || status === 'cancelled') throw new Error(`enrichment ${status}`);
}
const list = (values: string[]) => `[${values.map((v) => `'${v}'`).join(', ')}]`;
const regionOf = `transform(region, ${list(regions.map((r) => r.aliases[0]!))}, ${list(regions.map((r) => r.canonicalValue))}, region)`;
const mapped = (sql: { table(id: string): string }) =>
  `SELECT region, sum(amount) AS revenue, count() AS n, avg(units) AS units FROM (SELECT * REPLACE (${regionOf} AS region) FROM ${sql.table(source.data.id)}) GROUP BY region ORDER BY region`;
const viaStoreMapped = () => context.data().query<Record<string, unknown>>(organisationId, mapped);
const [c, d] = [await viaFacility(), await viaStoreMapped()];
if (c.length !== REGIONS || c.some((row, i) => row.region !== d[i]!.region || Number(row.n) !== Number(d[i]!.n)) || !String(c[0]!.region).startsWith('Region')) throw new Error(`canonical values disagree: ${JSON.stringify(c.slice(0, 2))} ${JSON.stringify(d.slice(0, 2))}`);
const canonical = { facility: [] as number[], direct: [] as number[] };
for (let run = 0; run < RUNS; run++) {
  for (const [name, work] of [['facility', viaFacility], ['direct', viaStoreMapped]] as const) {
    const start = process.hrtime.bigint();
    await work();
    canonical[name].push(Number(process.hrtime.bigint() - start) / 1e6);
  }
}
await service.close();
rmSync(dir, { recursive: true, force: true });

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const [facility, store, withBound] = [median(timings.facility), median(timings.direct), median(timings.bounded)];
const ratio = store / facility;
const [canonicalFacility, canonicalStore] = [median(canonical.facility), median(canonical.direct)];
const lines = [
  SECTION,
  '',
  machineLine(),
  '',
  `A grouped query (${REGIONS} groups: sum, count, avg) over ${ROWS.toLocaleString('en')} rows of one uploaded source, ${RUNS} runs each, alternating; median wall time.`,
  '',
  '| path | median ms | speed vs direct |',
  '|---|---:|---:|',
  `| \`POST /query\`: \`${query}\` | ${facility.toFixed(1)} | ${ratio.toFixed(2)} |`,
  `| the same SQL on the source table (data store, no HTTP) | ${store.toFixed(1)} | 1.00 |`,
  `| the same SQL filtering every row on the dataset bound (\`_causa_row <= last recorded row\`: dataset reads before this issue) | ${withBound.toFixed(1)} | ${(store / withBound).toFixed(2)} |`,
  `| \`POST /query\`, the same query after a Region concept (50 value mappings: "r7" -> "Region 7") is enriched: the column read through its value map | ${canonicalFacility.toFixed(1)} | ${(canonicalStore / canonicalFacility).toFixed(2)} vs the line below; ${(store / canonicalFacility).toFixed(2)} vs plain |`,
  `| the same SQL with the same \`transform\` of region, on the store | ${canonicalStore.toFixed(1)} | ${(store / canonicalStore).toFixed(2)} vs plain |`,
  '',
  `Goal (issue 18): the facility at least 0.8 of the direct query's speed: **${ratio >= 0.8 ? 'met' : 'NOT met'}** (${ratio.toFixed(2)}; with canonical values ${(canonicalStore / canonicalFacility).toFixed(2)}).`,
  '',
];
console.log(lines.join('\n'));
if (process.env.BENCH_WRITE !== '0') writeSection(resolve(REPO_ROOT, 'BENCHMARKS.md'), SECTION, lines.join('\n'));
