/**
 * A mixed-workload load test of Causa (ANCHORS.md "Service"; issue: "autocannon at 100 and 1,000 connections: 0
 * errors, p99 under 25 ms, for a mixed workload with the rate limiter in Redis").
 *
 * The server: Causa as `causa serve` builds it (buildApp over createContext, embedded SQLite on a temp file), with the
 * rate limiter and invalidation bus in Redis (REDIS_URL, default redis://127.0.0.1:6379), request logger off, in a
 * child process (this script forked with `--serve`). It learns a small linear twin before the load starts.
 *
 * The load: every autocannon connection repeats a cycle of twenty requests: `GET /me` and `GET /workspaces/{id}` six
 * times each, a list page of sources (`?limit=20`) three times, one simulation submit (a 200-sample intervention on the
 * twin) and four polls of that run's `GET .../status`, as fast as the server answers, at 100 and at 1,000 connections.
 * Beside each, in the same run, a bare fastify route (`GET /bare` of reads.ts) at the same connection count: at
 * saturation latency is connections / throughput (Little's law), so the bare route shows what the machine allows.
 * (autocannon's offered-rate mode is no help at 1,000 connections: it reports 100 ms and more even for the bare
 * route at a small fraction of its capacity.) Every answer must be 2xx (the keys' limits are high enough that nothing
 * is refused); simulation runs queue behind the workers.
 *
 * Reports req/s, p50/p97.5/p99 latency, non-2xx and errors, server CPU per request and the runs completed, and
 * replaces the section "## HTTP load (bench/http/load.ts)" of BENCHMARKS.md.
 *
 * Run: `npm run build && node dist/bench/http/load.js` (`make bench-load`).
 * Env: BENCH_DURATION (s, default 15), BENCH_WRITE=0, REDIS_URL.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSection } from '../lib/report.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SECTION = '## HTTP load (bench/http/load.ts)';
const KEY_RATE_LIMIT = 1_000_000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Ready {
  type: 'ready';
  port: number;
  key: string;
  workspaceId: string;
  twinId: string;
  versionId: string;
}
/** What the servers answer (the bare server of reads.ts reports its CPU as user and system). */
type FromChild = Ready | { type: 'cpu'; micros?: number; user?: number; system?: number; runs?: Record<string, number> };

// ---------------------------------------------------------------------------------------------------------
// The server.

async function serve(): Promise<void> {
  const { buildApp } = await import('../../src/app.js');
  const { loadConfig } = await import('../../src/config.js');
  const { createContext } = await import('../../src/context.js');
  const dir = mkdtempSync(join(tmpdir(), 'causa-load-'));
  const context = await createContext({ ...loadConfig({ CAUSA_DATA_DIR: dir, LOG_LEVEL: 'silent', REDIS_URL }), secretKey: randomBytes(32) });
  const app = await buildApp(context, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const org = await context.organisations.create(`load-${randomBytes(4).toString('hex')}`);
  const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, key = org.apiKey) => {
    const response = await app.inject({ method, url: `/api/v1${url}`, headers: { authorization: `Bearer ${key}` }, ...(payload === undefined ? {} : { payload: payload as object }) });
    if (response.statusCode >= 300) throw new Error(`${method} ${url} answered ${response.statusCode}: ${response.body}`);
    return (response.json() as { data: Record<string, any> }).data;
  };
  const ws = org.libraryWorkspaceId;
  // A linear twin x -> y -> z learned from 500 rows, the edges pinned.
  let seed = 7;
  const normal = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const u = (seed + 1) / (2 ** 31 + 1);
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const v = (seed + 1) / (2 ** 31 + 1);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  const rows = Array.from({ length: 500 }, () => {
    const x = normal();
    const y = 2 * x + normal();
    return { x, y, z: y - x + normal() };
  });
  const source = await call('POST', `/workspaces/${ws}/sources/from-data`, { name: 'load', rows });
  const twin = await call('POST', `/workspaces/${ws}/digital-twins`, { name: 'load', sourceId: source.id });
  await call('PATCH', `/workspaces/${ws}/digital-twins/${twin.id}/versions/${twin.versionId}/graph/fixed`, { addEdges: [{ source: 'x', target: 'y' }, { source: 'y', target: 'z' }] });
  const job = await call('POST', `/workspaces/${ws}/digital-twins/${twin.id}/run-pipeline`, { bootstrapSamples: 0 });
  for (;;) {
    const state = await call('GET', `/workspaces/${ws}/jobs/${job.jobId}`);
    if (state.status === 'completed') break;
    if (state.status === 'failed' || state.status === 'cancelled') throw new Error(`learning the twin ${state.status}: ${state.error}`);
    await new Promise((done) => setTimeout(done, 50));
  }
  const key = (await call('POST', '/api-keys', { name: 'load', scopes: ['sources:read', 'simulations:read', 'simulations:execute'], rateLimit: KEY_RATE_LIMIT })).key as string;
  const runs = async () => {
    const counted = await context.meta.db.selectFrom('jobs').select(['status']).select((eb) => eb.fn.countAll<number>().as('n')).where('type', '=', 'simulation').groupBy('status').execute();
    return Object.fromEntries(counted.map((row) => [row.status, Number(row.n)]));
  };
  process.on('message', async (message: { type: 'cpu' } | { type: 'stop' }) => {
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ type: 'cpu', micros: user + system, runs: await runs() } satisfies FromChild);
      return;
    }
    await app.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
  process.send?.({ type: 'ready', port: portOf(app.server.address()), key, workspaceId: ws, twinId: twin.id, versionId: twin.versionId } satisfies Ready);
}

function portOf(address: ReturnType<import('node:net').Server['address']>): number {
  if (address === null || typeof address === 'string') throw new Error(`unexpected listen address ${String(address)}`);
  return address.port;
}

// ---------------------------------------------------------------------------------------------------------
// The load generator.

interface Request {
  method: 'GET' | 'POST';
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}

interface Result {
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  latency: { p50: number; p97_5: number; p99: number; mean: number };
  requests: { average: number; total: number };
}

type Autocannon = (options: { url: string; connections: number; duration: number; requests: Request[]; timeout?: number }) => Promise<Result>;

class Server {
  private waiting: Array<(message: FromChild) => void> = [];

  constructor(private readonly child: ChildProcess, readonly ready: Ready) {
    child.on('message', (message: FromChild) => this.waiting.shift()?.(message));
  }

  static start(): Promise<Server> {
    const child = fork(fileURLToPath(import.meta.url), ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return Server.ready(child);
  }

  static ready(child: ChildProcess): Promise<Server> {
    return new Promise((ready, reject) => {
      child.once('exit', (code) => reject(new Error(`the server exited with code ${code} before it was ready`)));
      child.once('message', (message: FromChild) => {
        child.removeAllListeners('exit');
        if (message.type === 'ready') ready(new Server(child, message as Ready));
        else reject(new Error(`unexpected ${JSON.stringify(message)}`));
      });
    });
  }

  /** The bare fastify server of reads.ts (its `/bare` route). */
  static bare(): Promise<Server> {
    return Server.ready(fork(join(HERE, 'reads.js'), ['--serve', 'bare'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }

  usage(): Promise<{ micros: number; runs: Record<string, number> }> {
    return new Promise((answer) => {
      this.waiting.push((message) => answer(message.type === 'cpu' ? { micros: message.micros ?? (message.user ?? 0) + (message.system ?? 0), runs: message.runs ?? {} } : { micros: Number.NaN, runs: {} }));
      this.child.send({ type: 'cpu' });
    });
  }

  stop(): Promise<void> {
    return new Promise((done) => {
      this.child.once('exit', () => done());
      this.child.send({ type: 'stop' });
    });
  }
}

function cycle(ready: Ready): Request[] {
  const headers = { authorization: `Bearer ${ready.key}`, 'content-type': 'application/json' };
  const base = `/api/v1/workspaces/${ready.workspaceId}`;
  const reads: Request[] = [
    { method: 'GET', path: '/api/v1/me', headers },
    { method: 'GET', path: base, headers },
    { method: 'GET', path: `${base}/sources?limit=20`, headers },
  ];
  const scenario = { type: 'intervention', interventions: [{ variable: 'x', valueSpec: { type: 'set_value', value: 1 } }], targetVars: ['z'], samples: 200 };
  const submit: Request = {
    method: 'POST',
    path: `${base}/simulations`,
    headers,
    body: JSON.stringify({ digitalTwinId: ready.twinId, digitalTwinVersionId: ready.versionId, scenario }),
    onResponse: (status, body, context) => {
      if (status === 202) context.runId = (JSON.parse(body) as { data: { runId: string } }).data.runId;
    },
  };
  const poll: Request = {
    method: 'GET',
    headers,
    setupRequest: (request, context) => ({ ...request, path: `${base}/simulations/${String(context.runId)}/status` }),
  };
  const [me, workspace, sources] = reads as [Request, Request, Request];
  // Twenty requests: 12 reads, 3 list pages, 1 submit and 4 polls of the run it started.
  return [me, workspace, sources, submit, poll, me, workspace, poll, sources, me, workspace, poll, me, workspace, sources, poll, me, workspace, me, workspace];
}

async function main(): Promise<void> {
  const duration = Number(process.env.BENCH_DURATION ?? 15);
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const [causa, bare] = await Promise.all([Server.start(), Server.bare()]);
  const lines: string[] = [];
  const failures: string[] = [];
  const loadBefore = loadavg()[0]!;
  const load = async (server: Server, label: string, connections: number, requests: Request[]) => {
    const before = await server.usage();
    const result = await autocannon({ url: `http://127.0.0.1:${server.ready.port}`, connections, duration, requests, timeout: 30 });
    const after = await server.usage();
    const codes = Object.entries(result.statusCodeStats).map(([code, { count }]) => `${code}: ${count}`).join(', ');
    if (result.non2xx + result.errors + result.timeouts > 0) failures.push(`${label} at ${connections} connections: ${codes}; errors ${result.errors}, timeouts ${result.timeouts}`);
    const completed = (after.runs.completed ?? 0) - (before.runs.completed ?? 0);
    const waiting = (after.runs.queued ?? 0) + (after.runs.running ?? 0);
    const runs = server === causa ? `${completed.toLocaleString('en')} completed, ${waiting.toLocaleString('en')} still queued` : '';
    const p99 = result.latency.p99;
    lines.push(`| ${connections.toLocaleString('en')} | ${label} | ${Math.round(result.requests.average).toLocaleString('en')} | ${result.latency.p50} | ${result.latency.p97_5} | ${p99} | ${p99 < 25 ? 'met' : '**not met**'} | ${result.non2xx} | ${result.errors + result.timeouts} | ${((after.micros - before.micros) / Math.max(1, result.requests.total)).toFixed(0)} | ${runs} |`);
    process.stderr.write(`${lines.at(-1)}\n`);
  };
  try {
    // Warm-up: the serializers, caches and prepared statements of every route in the cycle.
    await autocannon({ url: `http://127.0.0.1:${causa.ready.port}`, connections: 20, duration: 3, requests: cycle(causa.ready) });
    for (const connections of [100, 1000]) {
      await load(causa, 'Causa, mixed', connections, cycle(causa.ready));
      await load(bare, 'bare fastify `GET /bare` (what the machine allows)', connections, [{ method: 'GET', path: '/bare' }]);
    }
  } finally {
    await Promise.all([causa.stop(), bare.stop()]);
  }
  const cpu = cpus();
  const table = ['| connections | server | req/s | p50 ms | p97.5 ms | p99 ms | p99 < 25 ms | non-2xx | errors | server CPU µs/req | simulation runs during the run |', '|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---|', ...lines].join('\n');
  console.log(table);
  if (failures.length > 0) {
    process.stderr.write(`Non-2xx answers or errors; BENCHMARKS.md is left alone:\n  ${failures.join('\n  ')}\n`);
    process.exitCode = 1;
    return;
  }
  if (process.env.BENCH_WRITE === '0') return;
  const section = [
    SECTION,
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores, Node ${process.version}; ` +
      `1-minute load average ${loadBefore.toFixed(2)} at the start. ${duration} s per run after a 3 s warm-up. Causa in a child process with the rate ` +
      'limiter and invalidation bus in Redis (loopback), embedded SQLite, request logger off; autocannon in the parent, on the same two cores.',
    '',
    table,
    '',
    'Each connection repeats twenty requests: `GET /me` and `GET /workspaces/{id}` six times each, a page of 20 sources three ' +
      'times, one simulation submit (a 200-sample intervention on a 3-variable twin) and four polls of that run\'s status. Every request ' +
      'passes the gate (API key, the key\'s per-minute limit counted in Redis, scope). Simulation runs execute on the pool ' +
      'while the load runs, on the same cores; the runs a load submits faster than the workers answer wait in the queue ' +
      '(the last column). Beside each, a bare fastify route answering `{"hello":"world"}` at the same connection count, in its ' +
      'own child process: under saturation a connection waits for the requests of all the others, so latency is connections ' +
      'divided by throughput (Little\'s law) and the bare route is the floor this machine sets. Goal (ANCHORS.md, issue 19): ' +
      '0 errors and p99 under 25 ms at 100 and at 1,000 connections.',
    '',
  ].join('\n');
  writeSection(resolve(HERE, '../../../BENCHMARKS.md'), SECTION, section);
}

if (process.argv.includes('--serve')) await serve();
else await main();
