/**
 * HTTP read throughput and latency of Causa against a bare fastify route, measured in the same run.
 *
 * What it measures: autocannon (in this process) drives, one after another and repeated over rounds,
 *   - bare:      a bare fastify 5 app, `GET /bare` answering `{"hello":"world"}` (the baseline),
 *   - me:        Causa `GET /api/v1/me` (bearer auth with the credential cache, IP allowlist, per-key rate
 *                limit with its headers, scope check, TypeBox response schema, x-request-id, metrics hook),
 *   - workspace: Causa `GET /api/v1/workspaces/{id}` (all of the above plus path-parameter validation and a
 *                SQLite lookup through Kysely on the embedded store),
 * each server in its own child process (this script forked with `--serve bare|causa`), so the load generator
 * never shares the server's event loop; on a 2-core machine the two processes still share the cores.
 * Causa is built as in production (buildApp over createContext, embedded SQLite on a temp file, in-memory
 * rate limiter) with `logger: false`; its keys carry a rate limit of 1,000,000/min so the full limiter path
 * runs without a single 429 (any non-2xx answer fails the run).
 *
 * Reports req/s (mean of autocannon's per-second samples), p50/p97.5/p99 latency, non-2xx/errors, server CPU
 * per request and the ratio of each Causa route to the bare route of the same round; prints a markdown table
 * and replaces the section "## HTTP reads (bench/http/reads.ts)" of BENCHMARKS.md.
 *
 * Run: `npm run build && node dist/bench/http/reads.js`
 * Env: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 2), BENCH_ROUNDS (default 2),
 *      BENCH_CONNECTIONS (default 100), BENCH_WRITE=0 (do not touch BENCHMARKS.md),
 *      BENCH_PROFILE=<dir> (run the Causa child under `node --cpu-prof`, profile written to <dir>),
 *      BENCH_LOG_LEVEL=<level> (build Causa with its request logger at that level, output discarded, as
 *      `causa serve` runs; default: logger off).
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSection } from '../lib/report.js';

// ---------------------------------------------------------------------------------------------------------
// Types of the parts of autocannon 8 used here (the package ships no declarations).

interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  pipelining?: number;
  timeout?: number;
}

interface Percentiles {
  average: number;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  total: number;
  p50: number;
  p90: number;
  p97_5: number;
  p99: number;
}

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  resets: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
  latency: Percentiles;
  requests: Percentiles & { sent: number };
}

type Autocannon = (options: AutocannonOptions) => Promise<AutocannonResult>;

// ---------------------------------------------------------------------------------------------------------
// Messages between the bench (parent) and a server (child).

interface ReadyMessage {
  type: 'ready';
  port: number;
  /** Paths to load, each with the Authorization header to send (none for bare) and its own port if not `port`. */
  targets: Record<string, { path: string; authorization?: string; port?: number }>;
  /** Causa only: more keys like the targets', for other benches driving this server. */
  spareKeys?: string[];
}
interface CpuMessage {
  type: 'cpu';
  /** process.cpuUsage() of the child, microseconds. */
  user: number;
  system: number;
}
type ChildMessage = ReadyMessage | CpuMessage;
type ParentMessage = { type: 'cpu' } | { type: 'stop' };

const HERE = dirname(fileURLToPath(import.meta.url));
const SECTION = '## HTTP reads (bench/http/reads.ts)';
const BENCH_RATE_LIMIT = 1_000_000;

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}

// ---------------------------------------------------------------------------------------------------------
// Children: the servers under test.

async function serveBare(): Promise<ReadyMessage> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.get('/bare', async () => ({ hello: 'world' }));
  addSameBytesRoute(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  onStop(() => app.close());
  return { type: 'ready', port: portOf(app.server.address()), targets: { bare: { path: '/bare' }, bareSameBytes: { path: SAME_BYTES_PATH } } };
}

const SAME_BYTES_PATH = '/bare-same-bytes';

/** The same bytes Causa's /me sends (body and headers), with none of its work: what the wire alone costs. */
function addSameBytesRoute(app: import('fastify').FastifyInstance): void {
  const me = { data: { userId: 'usr_01m80000000000000000000000', organisationId: 'org_01m80000000000000000000000', workspaceId: null, scopes: ['sources:read'], authType: 'apiKey', rateLimit: BENCH_RATE_LIMIT } };
  let id = 0;
  app.get(SAME_BYTES_PATH, async (_request, reply) => {
    reply.header('x-request-id', `0123456789ab-${(id++).toString(36)}`);
    reply.header('ratelimit-limit', BENCH_RATE_LIMIT).header('ratelimit-remaining', 999_999).header('ratelimit-reset', 42).header('ratelimit-policy', `${BENCH_RATE_LIMIT};w=60`);
    return me;
  });
}

/**
 * Raw uWebSockets.js (the uws-pack 20.0.8 build from npm, the one that installs here; Node 20 only) answering the
 * bare route's body: the transport the design card names, measured beside node:http in the same run.
 */
async function serveUws(): Promise<ReadyMessage> {
  const uws = await import('uws-pack');
  const app = uws.App();
  app.get('/bare', (res) => {
    res.writeHeader('content-type', 'application/json; charset=utf-8').end('{"hello":"world"}');
  });
  const port = await new Promise<number>((resolvePort, reject) => {
    app.listen('127.0.0.1', 0, (token) => (token ? resolvePort(uws.us_socket_local_port(token)) : reject(new Error('uWS could not listen'))));
  });
  onStop(async () => {
    app.close();
  });
  return { type: 'ready', port, targets: { uws: { path: '/bare' } } };
}

async function serveCausa(): Promise<ReadyMessage> {
  // Loaded only here, so that the bare server and the load generator never load Causa's modules.
  const { buildApp } = await import('../../src/app.js');
  const { loadConfig } = await import('../../src/config.js');
  const { createContext } = await import('../../src/context.js');
  const { openEmbeddedMetaStore } = await import('../../src/store/meta/embedded.js');

  const dir = mkdtempSync(join(tmpdir(), 'causa-bench-'));
  const logLevel = process.env.BENCH_LOG_LEVEL;
  const config = {
    ...loadConfig({ CAUSA_DATA_DIR: dir, LOG_LEVEL: logLevel !== undefined && logLevel !== '' ? logLevel : 'silent' }),
    secretKey: randomBytes(32),
  };
  const meta = await openEmbeddedMetaStore(join(dir, 'meta.sqlite'));
  const context = await createContext(config, { meta });
  const app = await buildApp(context, logLevel !== undefined && logLevel !== '' ? {} : { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  // The same-bytes route again, on a bare fastify instance inside this process: what a route costs in a process
  // that has loaded and built all of Causa (heap, code, inline caches of node's shared internals) but does none
  // of its per-request work. The gap between this row and the bare server's is the process, not the request.
  const { default: Fastify } = await import('fastify');
  const reference = Fastify({ logger: false });
  addSameBytesRoute(reference);
  await reference.listen({ host: '127.0.0.1', port: 0 });
  onStop(async () => {
    await reference.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const org = await context.organisations.create('bench');
  // One key per Causa route so that no route's traffic eats another's per-minute budget. Created over the
  // API, as a tenant would, with the organisation's admin key.
  const newKey = async (name: string): Promise<string> => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: { authorization: `Bearer ${org.apiKey}` },
      payload: { name, scopes: ['sources:read'], rateLimit: BENCH_RATE_LIMIT },
    });
    if (response.statusCode !== 201) throw new Error(`creating the bench key answered ${response.statusCode}: ${response.body}`);
    return (response.json() as { data: { key: string } }).data.key;
  };
  const meKey = await newKey('bench-me');
  const workspaceKey = await newKey('bench-workspace');
  return {
    type: 'ready',
    port: portOf(app.server.address()),
    // More keys of the same kind, for benches that drive other routes of this server (bench/mcp/calls.ts).
    spareKeys: [await newKey('bench-spare-1'), await newKey('bench-spare-2'), await newKey('bench-spare-3'), await newKey('bench-spare-4')],
    targets: {
      me: { path: '/api/v1/me', authorization: `Bearer ${meKey}` },
      workspace: { path: `/api/v1/workspaces/${org.libraryWorkspaceId}`, authorization: `Bearer ${workspaceKey}` },
      sameBytesInCausa: { path: SAME_BYTES_PATH, port: portOf(reference.server.address()) },
    },
  };
}

function portOf(address: ReturnType<import('node:net').Server['address']>): number {
  if (address === null || typeof address === 'string') throw new Error(`unexpected listen address ${String(address)}`);
  return address.port;
}

let stopHandler: () => Promise<void> = async () => undefined;
function onStop(handler: () => Promise<void>): void {
  stopHandler = handler;
}

async function child(kind: string): Promise<void> {
  const send = (message: ChildMessage) => process.send?.(message);
  const ready = kind === 'bare' ? await serveBare() : kind === 'causa' ? await serveCausa() : kind === 'uws' ? await serveUws() : null;
  if (ready === null) throw new Error(`--serve expects bare, uws or causa, got ${kind}`);
  // A normal exit, so that --cpu-prof writes its profile.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    stopHandler().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', user, system });
    } else if (message.type === 'stop') {
      stop();
    }
  });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Printed for manual use (`node dist/bench/http/reads.js --serve causa`); the bench itself reads the IPC message.
  if (process.send === undefined) process.stdout.write(`${JSON.stringify(ready)}\n`);
  send(ready);
}

// ---------------------------------------------------------------------------------------------------------
// Parent: the load generator.

/**
 * On two or more cores the server gets core 0 and this process (autocannon) core 1 (`taskset`, every thread), so
 * neither takes the other's core and the server's CPU per request is steady (BENCH_PIN=0 leaves them unpinned).
 */
const PINNED = process.env.BENCH_PIN !== '0' && cpus().length >= 2;
const SERVER_CORE = 0;
const LOAD_CORE = 1;

function pin(pid: number, core: number): void {
  if (!PINNED) return;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
  } catch (error) {
    throw new Error(`taskset could not pin process ${pid} to core ${core} (BENCH_PIN=0 runs unpinned): ${String(error)}`);
  }
}

class Server {
  private waiting: Array<(message: ChildMessage) => void> = [];

  private constructor(
    readonly kind: string,
    private readonly process: ChildProcess,
    readonly ready: ReadyMessage,
  ) {
    process.on('message', (message: ChildMessage) => this.waiting.shift()?.(message));
  }

  static start(kind: string, execArgv: string[]): Promise<Server> {
    const script = fileURLToPath(import.meta.url);
    const logged = kind === 'causa' && (process.env.BENCH_LOG_LEVEL ?? '') !== '';
    const proc = fork(script, ['--serve', kind], {
      execArgv,
      // A logging Causa writes a line per request to stdout: discard it, as a log shipper would take it away.
      stdio: ['ignore', logged ? 'ignore' : 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolveReady, reject) => {
      const fail = (reason: unknown) => reject(new Error(`the ${kind} server did not start: ${String(reason)}`));
      proc.once('error', fail);
      proc.once('exit', (code) => fail(`exit code ${code}`));
      proc.once('message', (message: ChildMessage) => {
        if (message.type !== 'ready') return fail(`unexpected message ${JSON.stringify(message)}`);
        pin(proc.pid!, SERVER_CORE);
        proc.removeAllListeners('exit');
        proc.once('exit', (code) => {
          if (code !== 0) process.stderr.write(`the ${kind} server exited with code ${code}\n`);
        });
        resolveReady(new Server(kind, proc, message));
      });
    });
  }

  /** CPU time (user + system, µs) the server process has used so far. */
  cpu(): Promise<number> {
    return new Promise((resolveCpu) => {
      this.waiting.push((message) => resolveCpu(message.type === 'cpu' ? message.user + message.system : NaN));
      this.process.send({ type: 'cpu' } satisfies ParentMessage);
    });
  }

  stop(): Promise<void> {
    return new Promise((resolveStop) => {
      if (this.process.exitCode !== null) return resolveStop();
      this.process.once('exit', () => resolveStop());
      this.process.send({ type: 'stop' } satisfies ParentMessage);
    });
  }
}

interface Target {
  name: string;
  label: string;
  server: Server;
  url: string;
  headers: Record<string, string>;
}

interface RoundResult {
  round: number;
  reqPerSec: number;
  total: number;
  p50: number;
  p97_5: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  cpuUsPerReq: number;
}

const LABELS: Record<string, string> = {
  bare: 'bare fastify `GET /bare` (baseline)',
  uws: 'raw uWebSockets.js `GET /bare` (uws-pack 20.0.8, the same body)',
  bareSameBytes: 'bare fastify sending the bytes of `/me` (reference)',
  sameBytesInCausa: 'the same bytes from a bare fastify instance inside the Causa process (reference)',
  me: 'Causa `GET /api/v1/me`',
  workspace: 'Causa `GET /api/v1/workspaces/{id}`',
};
const ORDER = ['bare', 'uws', 'bareSameBytes', 'sameBytesInCausa', 'me', 'workspace'];

async function sanityCheck(target: Target): Promise<void> {
  const response = await fetch(target.url, { headers: target.headers });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${target.name}: ${target.url} answered ${response.status}: ${body}`);
  if (target.name === 'me' || target.name === 'workspace') {
    const limit = response.headers.get('ratelimit-limit');
    if (limit !== String(BENCH_RATE_LIMIT)) throw new Error(`${target.name}: expected ratelimit-limit ${BENCH_RATE_LIMIT}, got ${limit}`);
    const data = (JSON.parse(body) as { data?: unknown }).data;
    if (data === undefined) throw new Error(`${target.name}: no data envelope in ${body}`);
  }
}

async function measure(autocannon: Autocannon, target: Target, seconds: number, connections: number) {
  return autocannon({ url: target.url, headers: target.headers, connections, duration: seconds });
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const fmt = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';

async function parent(): Promise<void> {
  const duration = envNumber('BENCH_DURATION', 10);
  const warmup = envNumber('BENCH_WARMUP', 2);
  const rounds = Math.round(envNumber('BENCH_ROUNDS', 2));
  const connections = Math.round(envNumber('BENCH_CONNECTIONS', 100));
  const write = process.env.BENCH_WRITE !== '0';
  const profileDir = process.env.BENCH_PROFILE;
  const logLevel = process.env.BENCH_LOG_LEVEL ?? '';
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

  const causaArgv: string[] = [];
  if (profileDir !== undefined && profileDir !== '') {
    mkdirSync(profileDir, { recursive: true });
    causaArgv.push('--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`);
  }
  const [bare, uws, causa] = await Promise.all([Server.start('bare', []), Server.start('uws', []), Server.start('causa', causaArgv)]);
  const servers = [bare, uws, causa];
  try {
    const targets = new Map<string, Target>();
    for (const server of servers) {
      for (const [name, { path, authorization, port }] of Object.entries(server.ready.targets)) {
        targets.set(name, {
          name,
          label: LABELS[name] ?? name,
          server,
          url: `http://127.0.0.1:${port ?? server.ready.port}${path}`,
          headers: authorization === undefined ? {} : { authorization },
        });
      }
    }
    for (const target of targets.values()) await sanityCheck(target);

    const results = new Map<string, RoundResult[]>(ORDER.map((name) => [name, []]));
    const started = new Date();
    // Other processes on the machine take cores from both the servers and the load generator: say how busy it was.
    const loadBefore = loadavg()[0]!;
    process.stderr.write(
      `HTTP reads: ${connections} connections, ${rounds} round(s) x ${duration} s per route (+${warmup} s warm-up), Node ${process.version}\n`,
    );
    for (let round = 1; round <= rounds; round++) {
      // Rotate the order each round so no route always runs first (or right after another's garbage).
      const order = ORDER.map((_, i) => ORDER[(i + round - 1) % ORDER.length]!);
      for (const name of order) {
        const target = targets.get(name)!;
        await measure(autocannon, target, warmup, connections);
        const cpuBefore = await target.server.cpu();
        const result = await measure(autocannon, target, duration, connections);
        const cpuAfter = await target.server.cpu();
        const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
        const row: RoundResult = {
          round,
          reqPerSec: result.requests.average,
          total: result.requests.total,
          p50: result.latency.p50,
          p97_5: result.latency.p97_5,
          p99: result.latency.p99,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statusCodes,
          cpuUsPerReq: (cpuAfter - cpuBefore) / Math.max(1, result.requests.total),
        };
        results.get(name)!.push(row);
        process.stderr.write(
          `  round ${round} ${name.padEnd(16)} ${fmt(row.reqPerSec).padStart(7)} req/s  p50 ${row.p50} ms  p97.5 ${row.p97_5} ms  p99 ${row.p99} ms` +
            `  non-2xx ${row.non2xx}  errors ${row.errors}  server CPU ${fmt(row.cpuUsPerReq)} µs/req\n`,
        );
      }
    }

    const load = { before: loadBefore, after: loadavg()[0]! };
    const report = render({ started, duration, warmup, rounds, connections, logLevel, results, targets, load });
    process.stdout.write(`${report.table}\n`);
    const failures = [...results.entries()].flatMap(([name, rows]) =>
      rows.filter((r) => r.non2xx > 0 || r.errors > 0 || r.timeouts > 0).map((r) => `${name} round ${r.round}: ${JSON.stringify(r.statusCodes)}, errors ${r.errors}, timeouts ${r.timeouts}`),
    );
    if (failures.length > 0) {
      process.stderr.write(`Non-2xx answers or errors; the figures are not valid and BENCHMARKS.md is left alone:\n  ${failures.join('\n  ')}\n`);
      process.exitCode = 1;
      return;
    }
    if (write) {
      const file = resolve(HERE, '../../../BENCHMARKS.md');
      writeSection(file, SECTION, report.section);
      process.stderr.write(`Wrote the section "${SECTION}" of ${file}\n`);
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    if (profileDir !== undefined && profileDir !== '') process.stderr.write(`CPU profile of the Causa server written to ${resolve(profileDir)}\n`);
  }
}

interface Summary {
  name: string;
  label: string;
  reqPerSec: number;
  perRound: number[];
  ratio: number;
  roundRatios: number[];
  p50: number;
  p97_5: number;
  p99: number;
  non2xx: number;
  errors: number;
  cpuUsPerReq: number;
}

function render(run: {
  started: Date;
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
  logLevel: string;
  results: Map<string, RoundResult[]>;
  targets: Map<string, Target>;
  load: { before: number; after: number };
}): { table: string; section: string } {
  const bareRows = run.results.get('bare')!;
  const bareMean = mean(bareRows.map((r) => r.reqPerSec));
  const summaries: Summary[] = ORDER.map((name) => {
    const rows = run.results.get(name)!;
    const reqPerSec = mean(rows.map((r) => r.reqPerSec));
    return {
      name,
      label: run.targets.get(name)!.label,
      reqPerSec,
      perRound: rows.map((r) => r.reqPerSec),
      ratio: reqPerSec / bareMean,
      roundRatios: rows.map((r, i) => r.reqPerSec / bareRows[i]!.reqPerSec),
      // Latencies: the worst round, so a goal is only called met if every round met it.
      p50: Math.max(...rows.map((r) => r.p50)),
      p97_5: Math.max(...rows.map((r) => r.p97_5)),
      p99: Math.max(...rows.map((r) => r.p99)),
      non2xx: rows.reduce((sum, r) => sum + r.non2xx, 0),
      errors: rows.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
      cpuUsPerReq: mean(rows.map((r) => r.cpuUsPerReq)),
    };
  });

  const header =
    '| route | req/s (mean) | req/s per round | ratio vs bare (per round) | p50 ms | p97.5 ms | p99 ms | non-2xx | errors | server CPU µs/req |\n' +
    '|---|---:|---|---|---:|---:|---:|---:|---:|---:|';
  const lines = summaries.map((s) =>
    [
      s.label,
      fmt(s.reqPerSec),
      s.perRound.map((v) => fmt(v)).join(' / '),
      s.name === 'bare' ? '1.00' : `**${fmt(s.ratio, 2)}** (${s.roundRatios.map((v) => fmt(v, 2)).join(' / ')})`,
      fmt(s.p50),
      fmt(s.p97_5),
      fmt(s.p99),
      fmt(s.non2xx),
      fmt(s.errors),
      fmt(s.cpuUsPerReq),
    ].join(' | '),
  );
  const table = `${header}\n${lines.map((l) => `| ${l} |`).join('\n')}`;

  const causaRows = summaries.filter((s) => s.name === 'me' || s.name === 'workspace');
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  const goals = causaRows
    .map(
      (s) =>
        `- ${s.label}: ratio ${fmt(s.ratio, 2)} (goal >= 0.70: ${verdict(s.ratio >= 0.7)}); ` +
        `p99 ${fmt(s.p99)} ms (goal < 25 ms: ${verdict(s.p99 < 25)})`,
    )
    .join('\n');
  const cpu = cpus();
  const machine = `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores`;
  const logging = run.logLevel === '' ? 'request logger off (`logger: false`)' : `request logger on at level ${run.logLevel} (output discarded)`;
  const section = [
    SECTION,
    '',
    `Measured ${run.started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}, Node ${process.version}, ` +
      `fastify ${fastifyVersion()}, autocannon ${autocannonVersion()}. ${run.connections} connections, ` +
      `${run.rounds} round(s) of ${run.duration} s per route after a ${run.warmup} s warm-up, the route order rotated each round. ` +
      (PINNED
        ? `Each server runs in its own child process pinned to core ${SERVER_CORE} (taskset); autocannon runs in the parent, pinned to core ${LOAD_CORE}. `
        : 'Each server runs in its own child process; autocannon runs in the parent, on the same cores. ') +
      `1-minute load average ${fmt(run.load.before, 2)} when the run started (servers idle) and ${fmt(run.load.after, 2)} at its end ` +
      '(the bench itself accounts for about 2; more means other work took cores from it).',
    '',
    table,
    '',
    'req/s is the mean of autocannon\'s per-second samples, averaged over rounds; the ratio divides by the bare route ' +
      'of the same run (per-round ratios pair routes of the same round). Latencies are the worst round. ' +
      'Server CPU is the server process\'s user+system time divided by the requests it answered: the cost of a ' +
      'request, which other load on the machine disturbs less than req/s. At the bare route\'s rate the bare server ' +
      'and autocannon each take about one of the two cores, so a Causa route whose server CPU per request is a multiple ' +
      'of the bare one saturates its core at a correspondingly lower rate.',
    '',
    'Goals (ANCHORS.md, "Service": authenticated, validated, rate-limited reads within 70% of a bare fastify route ' +
      'in the same run; p99 < 25 ms at 100 connections):',
    '',
    goals,
    '',
    `What runs: Causa as built by \`buildApp\` over \`createContext\` with the embedded SQLite store on a temp file, the ` +
      `in-memory rate limiter and the in-process invalidation bus, ${logging}. Both Causa routes pass the route gate ` +
      '(bearer API key from the credential cache, IP allowlist, the key\'s per-minute limit of 1,000,000 so nothing is ' +
      'refused, RateLimit headers, route scope), get an x-request-id, are recorded in the latency histogram and are ' +
      'serialized through their response schema. `/workspaces/{id}` also validates its path parameter and passes the ' +
      'workspace access gate (workspace row from the access cache, refreshed from SQLite every 5 s or on invalidation; ' +
      'the bench key belongs to the organisation admin, so no membership lookup). The "bytes of `/me`" row is a bare ' +
      'fastify route sending the same body and headers as Causa\'s `/me`: the cost of the response on the wire alone, ' +
      'so the gap between it and Causa is what authentication, limits, validation and metrics cost. The "inside the ' +
      'Causa process" row serves those bytes again from a second, bare fastify instance in the Causa server\'s own ' +
      'process (nothing of Causa on its path): its gap to the bare-process row is what a process that has loaded and ' +
      'built all of Causa pays on every request, the gap from it to the Causa rows is what Causa\'s request work costs.',
    '',
  ].join('\n');
  return { table, section };
}

function packageVersion(name: string): string {
  try {
    const require = createRequire(import.meta.url);
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
const fastifyVersion = () => packageVersion('fastify');
const autocannonVersion = () => packageVersion('autocannon');

// ---------------------------------------------------------------------------------------------------------

const serveAt = process.argv.indexOf('--serve');
const main = serveAt === -1 ? parent() : child(process.argv[serveAt + 1] ?? '');
main.catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
