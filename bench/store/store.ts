/**
 * Data-plane benchmark: CSV ingest through the API, dataset record pages, exports, each against the data engine
 * doing the same work directly, measured in the same run.
 *
 *   - ingest:  a generated CSV (BENCH_ROWS rows, default 1,000,000) uploaded to a source over HTTP
 *              (POST .../sources/{id}/upload, streamed from disk), vs chDB's own
 *              `INSERT INTO t SELECT * FROM file(<csv>, CSVWithNames)` into a table of the same types;
 *              the service's peak RSS during the upload shows whether the file was buffered;
 *   - records: GET .../datasets/{id}/records?limit=50 at page 1 and at page 1000 (row 49,950), for a dataset in
 *              ingest order and one sorted by a column (keyset on the sort value);
 *   - export:  GET .../datasets/{id}/export/csv and .../export/parquet read to the end over HTTP, vs the engine
 *              writing `SELECT ... FORMAT CSVWithNames` and `FORMAT Parquet` of the same table.
 * The engine baseline and the service each run in their own child process (chDB: one data directory per
 * process). Writes the section "## Data plane (bench/store/store.ts)" of BENCHMARKS.md.
 *
 * Run: `npm run build && node dist/bench/store/store.js`
 * Env: BENCH_ROWS (default 1000000), BENCH_PAGES (requests per page measurement, default 30), BENCH_WRITE=0,
 *      BENCH_PROFILE=<dir> (CPU profile of the service child).
 */
import { execFile, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { machineLine, median, writeSection } from '../lib/report.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SECTION = '## Data plane (bench/store/store.ts)';
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const PAGES = Number(process.env.BENCH_PAGES ?? 30);
/** Rows of the file written with units (amounts as currency, quantities as percentages, dates DD.MM.YYYY). */
const UNITS_ROWS = Number(process.env.BENCH_UNITS_ROWS ?? ROWS);

/** The CSV's columns and the types Causa infers for them (the engine baseline creates the same table). */
const COLUMNS = [
  ['id', 'Nullable(Int64)'],
  ['category', 'LowCardinality(Nullable(String))'],
  ['amount', 'Nullable(Float64)'],
  ['qty', 'Nullable(Int64)'],
  ['day', 'Nullable(Date32)'],
  ['flag', 'Nullable(Bool)'],
  ['note', 'Nullable(String)'],
] as const;

interface EngineResult { ingestMs: number; exportMs: number; exportBytes: number; parquetMs: number; parquetBytes: number }
interface ServiceResult {
  ingestMs: number;
  unitsIngestMs: number;
  peakRssMb: number;
  baseRssMb: number;
  /** Peak of the JS heap plus Buffers during the upload: what the service itself holds. */
  peakJsMb: number;
  rows: number;
  pages: Record<'ordered1' | 'ordered1000' | 'sorted1' | 'sorted1000', number>;
  exportMs: number;
  exportBytes: number;
  parquetMs: number;
  parquetBytes: number;
}

// ---------------------------------------------------------------------------------------------------------

/** `units`: amounts written like "$1,234.56" (quoted), quantities like "12%" and dates like 31.01.2024. */
async function generateCsv(path: string, rows: number, units = false): Promise<void> {
  const out = createWriteStream(path);
  let seed = 42;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  const categories = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];
  out.write('id,category,amount,qty,day,flag,note\n');
  let chunk = '';
  for (let i = 0; i < rows; i += 1) {
    const iso = new Date(Date.UTC(2020, 0, 1) + Math.floor(random() * 1500) * 86_400_000).toISOString().slice(0, 10);
    const day = units ? `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}` : iso;
    const amount = units ? `"$${(random() * 100_000).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}"` : (random() * 1000).toFixed(2);
    const qty = `${Math.floor(random() * 20)}${units ? '%' : ''}`;
    chunk += `${i},${categories[Math.floor(random() * categories.length)]},${amount},${qty},${day},${random() < 0.5},note ${Math.floor(random() * 100_000)}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      chunk = '';
    }
  }
  out.end(chunk);
  await finished(out);
}

// ---------------------------------------------------------------------------------------------------------
// Children.

async function engine(csv: string): Promise<EngineResult> {
  const { createClient } = await import('@clickhouse/client');
  const dir = mkdtempSync(join(tmpdir(), 'causa-bench-engine-'));
  const { createChdbConnection } = createRequire(import.meta.url)('chdb/connection') as typeof import('chdb/connection');
  const client = createClient({ connection: createChdbConnection({ path: dir }) } as never);
  try {
    const columns = COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ');
    await client.command({ query: `CREATE TABLE t (_row UInt64, ${columns}) ENGINE = MergeTree ORDER BY _row` });
    const started = performance.now();
    await client.command({
      query: `INSERT INTO t SELECT rowNumberInAllBlocks(), * FROM file({path:String}, 'CSVWithNames', {structure:String})`,
      query_params: { path: csv, structure: COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ') },
    });
    const ingestMs = performance.now() - started;
    const exportStarted = performance.now();
    const result = await client.exec({ query: `SELECT ${COLUMNS.map(([n]) => n).join(', ')} FROM t ORDER BY _row FORMAT CSVWithNames` });
    let exportBytes = 0;
    for await (const chunk of result.stream) exportBytes += (chunk as Buffer).length;
    const exportMs = performance.now() - exportStarted;
    const parquetStarted = performance.now();
    const parquet = await client.exec({ query: `SELECT ${COLUMNS.map(([n]) => n).join(', ')} FROM t ORDER BY _row FORMAT Parquet` });
    let parquetBytes = 0;
    for await (const chunk of parquet.stream) parquetBytes += (chunk as Buffer).length;
    return { ingestMs, exportMs, exportBytes, parquetMs: performance.now() - parquetStarted, parquetBytes };
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** POSTs a file with curl (a separate process; -T streams it, --data-binary would read it whole), answering the status and body. */
function curlUpload(url: string, key: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolveUpload, reject) => {
    execFile('curl', ['-s', '-X', 'POST', '-H', `authorization: Bearer ${key}`, '-H', 'content-type: text/csv', '-H', 'expect:', '-T', path, '-w', '\n%{http_code}', url], { maxBuffer: 1 << 26 }, (error, stdout) => {
      if (error) return reject(error);
      const cut = stdout.lastIndexOf('\n');
      resolveUpload({ status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) });
    });
  });
}

async function service(csv: string, unitsCsv: string): Promise<ServiceResult> {
  const { buildApp } = await import('../../src/app.js');
  const { loadConfig } = await import('../../src/config.js');
  const { createContext } = await import('../../src/context.js');
  const dir = mkdtempSync(join(tmpdir(), 'causa-bench-store-'));
  const context = await createContext({ ...loadConfig({ CAUSA_DATA_DIR: dir, LOG_LEVEL: 'silent' }), secretKey: randomBytes(32) });
  const app = await buildApp(context, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/api/v1`;
  const org = await context.organisations.create('bench');
  const headers = { authorization: `Bearer ${org.apiKey}` };
  const ws = org.libraryWorkspaceId;
  const json = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
    const parsed = (await res.json()) as { data: any; pagination?: any };
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(parsed)}`);
    return parsed;
  };
  try {
    const source = (await json('POST', `/workspaces/${ws}/sources`, { name: 'Bench' })).data.id as string;
    await context.data().ping(); // the engine is loaded before the baseline memory is taken
    const baseRss = process.memoryUsage().rss;
    let peakRss = baseRss;
    let peakJs = 0;
    const sampler = setInterval(() => {
      const memory = process.memoryUsage();
      peakRss = Math.max(peakRss, memory.rss);
      peakJs = Math.max(peakJs, memory.heapUsed + memory.arrayBuffers);
    }, 50);
    // Sent by curl, in its own process: a client in this process would buffer the body here and count as the service's memory.
    const started = performance.now();
    const upload = await curlUpload(`${base}/workspaces/${ws}/sources/${source}/upload?fileName=bench.csv`, org.apiKey, csv);
    const ingestMs = performance.now() - started;
    clearInterval(sampler);
    if (upload.status !== 201) throw new Error(`upload: ${upload.status} ${upload.body}`);
    const uploaded = JSON.parse(upload.body) as { data: { source: { documentCount: number } } };

    // The plain source's ontology extraction (a job its upload queues) ends before the next upload starts, so the
    // units file is timed alone, as the plain one was.
    for (let i = 0; !['completed', 'failed'].includes((await json('GET', `/sources/${source}`)).data.ontologyStatus); i++) {
      if (i > 600) throw new Error('the ontology extraction of the plain source did not end within a minute');
      await new Promise((done) => setTimeout(done, 100));
    }
    // The same client as the plain file: a fetch in this process would parse and send the body on the service's own thread.
    const unitsSource = (await json('POST', `/workspaces/${ws}/sources`, { name: 'Currency amounts' })).data.id as string;
    const unitsStarted = performance.now();
    const unitsUpload = await curlUpload(`${base}/workspaces/${ws}/sources/${unitsSource}/upload?fileName=units.csv`, org.apiKey, unitsCsv);
    const unitsIngestMs = performance.now() - unitsStarted;
    if (unitsUpload.status !== 201) throw new Error(`units upload: ${unitsUpload.status} ${unitsUpload.body}`);

    const ordered = (await json('POST', `/workspaces/${ws}/datasets`, { name: 'Ordered', sources: [{ id: source }] })).data.id;
    const sorted = (await json('POST', `/workspaces/${ws}/datasets`, {
      name: 'Sorted',
      sources: [{ id: source }],
      operations: [{ sourceId: source, config: { type: 'sort', keys: [{ column: 'amount', direction: 'desc' }] } }],
    })).data.id;
    const pageTimes = async (id: string, cursor: string | null) => {
      const times: number[] = [];
      for (let i = 0; i < PAGES; i += 1) {
        const t0 = performance.now();
        await json('GET', `/workspaces/${ws}/datasets/${id}/records?limit=50${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
        times.push(performance.now() - t0);
      }
      return median(times);
    };
    // Page 1000 of 50 starts after row 49,950: reached by big pages (a cursor does not depend on the page size).
    const deepCursor = async (id: string) => {
      let cursor: string | null = null;
      for (let seen = 0; seen < 49_950; ) {
        const take = Math.min(1000, 49_950 - seen);
        const page = await json('GET', `/workspaces/${ws}/datasets/${id}/records?limit=${take}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
        cursor = page.pagination.cursor;
        seen += take;
      }
      return cursor;
    };
    const pages = {
      ordered1: await pageTimes(ordered, null),
      ordered1000: await pageTimes(ordered, await deepCursor(ordered)),
      sorted1: await pageTimes(sorted, null),
      sorted1000: await pageTimes(sorted, await deepCursor(sorted)),
    };

    const exportStarted = performance.now();
    const exported = await fetch(`${base}/workspaces/${ws}/datasets/${ordered}/export/csv`, { headers });
    let exportBytes = 0;
    for await (const chunk of exported.body as unknown as AsyncIterable<Uint8Array>) exportBytes += chunk.length;
    const exportMs = performance.now() - exportStarted;
    // Parquet: read in parts of a million rows, each a file of its own, spliced into one file.
    const parquetStarted = performance.now();
    const parquet = await fetch(`${base}/workspaces/${ws}/datasets/${ordered}/export/parquet`, { headers });
    let parquetBytes = 0;
    for await (const chunk of parquet.body as unknown as AsyncIterable<Uint8Array>) parquetBytes += chunk.length;
    const parquetMs = performance.now() - parquetStarted;
    return {
      parquetMs,
      parquetBytes,
      ingestMs,
      unitsIngestMs,
      peakRssMb: peakRss / 2 ** 20,
      peakJsMb: peakJs / 2 ** 20,
      baseRssMb: baseRss / 2 ** 20,
      rows: uploaded.data.source.documentCount,
      pages,
      exportMs,
      exportBytes,
    };
  } finally {
    await app.close();
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Parent.

function runChild<T>(role: 'engine' | 'service', csv: string, unitsCsv = ''): Promise<T> {
  return new Promise((resolvePromise, reject) => {
    const profile = process.env.BENCH_PROFILE;
    const execArgv = profile !== undefined && role === 'service' ? ['--cpu-prof', '--cpu-prof-dir', profile] : [];
    const child = fork(fileURLToPath(import.meta.url), ['--child', role, csv, unitsCsv], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
    child.once('message', (message) => resolvePromise(message as T));
    child.once('exit', (code) => code !== 0 && reject(new Error(`${role} child exited with ${code}`)));
  });
}

async function parent(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'causa-bench-csv-'));
  try {
    const csv = join(dir, 'bench.csv');
    await generateCsv(csv, ROWS);
    const unitsCsv = join(dir, 'units.csv');
    await generateCsv(unitsCsv, UNITS_ROWS, true);
    const bytes = statSync(csv).size;
    const machine = machineLine();
    process.stderr.write(`Generated ${ROWS} rows (${(bytes / 2 ** 20).toFixed(1)} MiB); running the engine baseline\n`);
    const engineResult = await runChild<EngineResult>('engine', csv);
    process.stderr.write('Running the service\n');
    const serviceResult = await runChild<ServiceResult>('service', csv, unitsCsv);
    if (serviceResult.rows !== ROWS) throw new Error(`the service ingested ${serviceResult.rows} rows, not ${ROWS}`);
    const section = report(machine, bytes, engineResult, serviceResult);
    process.stdout.write(`${section}\n`);
    if (process.env.BENCH_WRITE !== '0') writeSection(resolve(HERE, '../../../BENCHMARKS.md'), SECTION, section);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(machine: string, bytes: number, engineResult: EngineResult, serviceResult: ServiceResult): string {
  const rate = (ms: number) => Math.round(ROWS / (ms / 1000)).toLocaleString('en-US');
  const mibps = (b: number, ms: number) => (b / 2 ** 20 / (ms / 1000)).toFixed(1);
  const ms = (value: number) => value.toFixed(1);
  const p = serviceResult.pages;
  return [
    SECTION,
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}. ${ROWS.toLocaleString('en-US')} rows, ${(bytes / 2 ** 20).toFixed(1)} MiB of CSV (7 columns: integers, a 12-value category, decimals, dates, booleans, text). chDB embedded; the engine baseline and the service each in their own process.`,
    '',
    '| measure | Causa (over HTTP) | engine alone (same run) | ratio |',
    '|---|---:|---:|---:|',
    `| CSV ingest, rows/s | ${rate(serviceResult.ingestMs)} (${ms(serviceResult.ingestMs / 1000)} s) | ${rate(engineResult.ingestMs)} (${ms(engineResult.ingestMs / 1000)} s, \`INSERT ... SELECT FROM file()\`) | **${(engineResult.ingestMs / serviceResult.ingestMs).toFixed(2)}** |`,
    `| CSV ingest with units (${UNITS_ROWS.toLocaleString('en-US')} rows: amounts "$1,234.56", quantities "12%", dates DD.MM.YYYY), rows/s | ${Math.round(UNITS_ROWS / (serviceResult.unitsIngestMs / 1000)).toLocaleString('en-US')} (${ms(serviceResult.unitsIngestMs / 1000)} s) | (plain file above) | **${((UNITS_ROWS / serviceResult.unitsIngestMs) / (ROWS / engineResult.ingestMs)).toFixed(2)}** |`,
    `| CSV export, MiB/s | ${mibps(serviceResult.exportBytes, serviceResult.exportMs)} (${ms(serviceResult.exportMs / 1000)} s) | ${mibps(engineResult.exportBytes, engineResult.exportMs)} (${ms(engineResult.exportMs / 1000)} s, \`SELECT ... FORMAT CSVWithNames\`) | **${(engineResult.exportMs / serviceResult.exportMs).toFixed(2)}** |`,
    `| Parquet export (parts of a million rows spliced into one file), s | ${ms(serviceResult.parquetMs / 1000)} s, ${(serviceResult.parquetBytes / 2 ** 20).toFixed(1)} MiB | ${ms(engineResult.parquetMs / 1000)} s, ${(engineResult.parquetBytes / 2 ** 20).toFixed(1)} MiB (\`SELECT ... FORMAT Parquet\`, one file) | **${(engineResult.parquetMs / serviceResult.parquetMs).toFixed(2)}** |`,
    '',
    `Memory of the service during the upload of the ${(bytes / 2 ** 20).toFixed(0)} MiB file: JS heap and buffers at most ${Math.round(serviceResult.peakJsMb)} MiB; process RSS at most ${Math.round(serviceResult.peakRssMb)} MiB (${Math.round(serviceResult.baseRssMb)} MiB with the engine loaded, before it). The file is sent by curl from its own process. The body is streamed to a temporary file while hashed; the engine reads that file from disk (plain CSV), or JS reads it in chunks of 10,000 rows; the file is never held in JS. The RSS growth is the engine's working memory for the load and the statistics (exact distinct counts of every column).`,
    '',
    `Record pages (limit 50, median of ${PAGES} requests over HTTP, count of the total included):`,
    '',
    '| dataset | page 1 ms | page 1000 ms | page 1000 / page 1 |',
    '|---|---:|---:|---:|',
    `| ingest order (keyset on the row ordinal) | ${ms(p.ordered1)} | ${ms(p.ordered1000)} | ${(p.ordered1000 / p.ordered1).toFixed(2)} |`,
    `| sorted by amount desc (keyset on amount, then ordinal) | ${ms(p.sorted1)} | ${ms(p.sorted1000)} | ${(p.sorted1000 / p.sorted1).toFixed(2)} |`,
    '',
    'ANCHORS.md sets no data-plane figure; the goals here are the ratios to the engine itself and a page 1000 that costs what page 1 does.',
    '',
  ].join('\n');
}

const childAt = process.argv.indexOf('--child');
if (childAt === -1) {
  parent().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
} else {
  const role = process.argv[childAt + 1];
  const csv = process.argv[childAt + 2]!;
  (role === 'engine' ? engine(csv) : service(csv, process.argv[childAt + 3]!))
    .then((result) => process.send!(result, () => process.exit(0)))
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
}
