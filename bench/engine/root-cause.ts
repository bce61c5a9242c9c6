/**
 * Root cause analysis on the PetShop benchmark against ANCHORS.md ("Root cause analysis"): top-1 and top-3 recall
 * of the injected root cause per target metric (latency, availability), specificity on normal operation and the
 * false-alarm rate, at the default targetFpr, for the low_traffic and high_traffic scenarios (52 issues).
 *
 * Protocol (the publishers' rca_task.py and data_preprocessing.py, applied to our engine):
 * - Twin: for each scenario and target metric, one continuous variable per call-graph node -- its metric and
 *   statistic named by the issues (Average) -- fitted with fitCbn (linear-Gaussian, TS reference kernels) on the
 *   normal-operation rows, on the call graph reversed (callee -> caller: a slow or failing callee makes its caller
 *   slow or failing). Nodes observed in fewer than half the normal rows are left out and marginalised (their
 *   parents joined to their children); other missing cells stay missing.
 * - Issues: runRootCauseAnalysis on the issue's rows 3-5 (the publishers analyse the third row, the trigger point,
 *   and move on to the next rows while the target is not anomalous); the first row the engine diagnoses (target
 *   anomalous, or reached by an anomaly upstream) counts. A miss when no row is. Top-k: the injected node among the
 *   first k root causes; ties (a shared rank) are reported in a column of their own.
 * - Specificity (rca_task.evaluate_specificity's splits): the twin is refitted on the normal rows before each split
 *   point (n/2, n/2 + n/10, ... < n - 3) and the rows after it are cut into windows of 5 consecutive rows, shaped
 *   like an issue; a window is a false alarm when a row among its rows 3-5 is diagnosed. Specificity = share of
 *   windows without a false alarm. The false-alarm rate is the share of those held-out rows whose target is
 *   flagged, to compare with targetFpr.
 *
 * Run: `npx tsc -p tsconfig.json --outDir .dist-engine && node .dist-engine/bench/engine/root-cause.js`
 * Env: BENCH_DATA_DIR (default ../shared/benchmarks/data), BENCH_WRITE=0 (do not touch BENCHMARKS.md),
 *      BENCH_VERBOSE=1 (print each issue's ranking).
 */
import { resolve } from 'node:path';
import { referenceKernels } from '../../src/compute/reference.js';
import { fitCbn } from '../../src/engine/cbn/fit.js';
import { continuousColumn, frameOf } from '../../src/engine/frame.js';
import { DEFAULT_TARGET_FPR } from '../../src/engine/inference/calibration.js';
import type { InferenceContext } from '../../src/engine/inference/outcome.js';
import { type DiagnosedSample, runRootCauseAnalysis } from '../../src/engine/inference/root-cause.js';
import type { CbnModel, EdgeRef } from '../../src/engine/types.js';
import { machineLine, writeSection } from '../lib/report.js';
import { REPO_ROOT, benchmarkDataDir } from './benchmark-data.js';
import { type Issue, causalEdges, marginalise, metricColumns, readCallGraph, readIssues, readMetrics } from './petshop.js';

const SECTION = '## Root cause analysis (bench/engine/root-cause.ts)';
const SCENARIOS = ['low_traffic', 'high_traffic'];
const METRICS = ['latency', 'availability'] as const;
const STATISTIC = 'Average';
/** Rows of an issue (0-based) the diagnosis may use: the trigger row and the two after it. */
const DIAGNOSED_ROWS = [2, 3, 4];
const WINDOW = 5;
/** A node needs at least this share of observed normal rows to be part of the twin. */
const MIN_OBSERVED = 0.5;
const SEED = 1;
const verbose = process.env.BENCH_VERBOSE === '1';

const context: InferenceContext = {
  seed: SEED,
  hooks: {},
  evaluateMetric: () => Promise.reject(new Error('no metrics in root cause analysis')),
};

interface Twin {
  model: CbnModel;
  variables: string[];
}

/** The twin of one metric, fitted on rows [from, to) of the normal data. */
function fitTwin(normal: Map<string, Float64Array>, calls: EdgeRef[], from: number, to: number): Twin {
  const nodes = [...new Set(calls.flatMap((e) => [e.source, e.target]))].sort();
  const kept = nodes.filter((node) => {
    const values = normal.get(node)?.subarray(from, to);
    if (!values) return false;
    let observed = 0;
    for (const v of values) if (!Number.isNaN(v)) observed++;
    return observed >= MIN_OBSERVED * values.length;
  });
  const edges = marginalise(causalEdges(calls), new Set(kept));
  const frame = frameOf(kept.map((node) => continuousColumn(node, Array.from(normal.get(node)!.subarray(from, to)))));
  return { model: fitCbn(frame, edges, {}, referenceKernels), variables: kept };
}

function records(columns: Map<string, Float64Array>, variables: string[], rows: number[]): Record<string, number | null>[] {
  return rows.map((r) => Object.fromEntries(variables.map((v) => {
    const x = columns.get(v)?.[r];
    return [v, x === undefined || Number.isNaN(x) ? null : x];
  })));
}

async function diagnose(twin: Twin, target: string, columns: Map<string, Float64Array>, rows: number[], baselineRows: number[] = []): Promise<DiagnosedSample[]> {
  const baseline = baselineRows.length === 0 ? {} : { baselineSamples: records(columns, twin.variables, baselineRows) };
  const outcome = await runRootCauseAnalysis(twin.model, { type: 'root_cause_analysis', targetVariable: target, samples: records(columns, twin.variables, rows), ...baseline }, context);
  return outcome.details.samples as DiagnosedSample[];
}

interface IssueResult {
  issue: Issue;
  /** How the diagnosed row was anomalous (null: no row was). */
  basis: 'target' | 'upstream' | null;
  ranking: string[];
  /** The root causes the twin ranks first, ties included. */
  firstRank: string[];
  /** Baseline in the same run: the same candidates ranked by their own noise score alone (no attribution). */
  noiseRanking: string[];
}

interface Row {
  scenario: string;
  /** Diagnosed with the rows before the diagnosed ones as baselineSamples. */
  baseline: boolean;
  metric: (typeof METRICS)[number];
  issues: IssueResult[];
  windows: number;
  falseAlarmWindows: number;
  heldOutRows: number;
  flaggedRows: number;
}

async function evaluateScenario(scenario: string, metric: (typeof METRICS)[number], withBaseline: boolean): Promise<Row> {
  const baselineOf = (start: number) => (withBaseline ? Array.from({ length: DIAGNOSED_ROWS[0]! }, (_, k) => start + k) : []);
  const dir = resolve(benchmarkDataDir(), 'petshop', scenario);
  const calls = readCallGraph(resolve(dir, 'graph.csv'));
  const normal = metricColumns(readMetrics(resolve(dir, 'noissue', 'metrics.csv')), metric, STATISTIC);
  const n = normal.values().next().value?.length ?? 0;
  const twin = fitTwin(normal, calls, 0, n);
  const issues = readIssues(dir).filter((i) => i.targetMetric === metric);
  const results: IssueResult[] = [];
  for (const issue of issues) {
    const columns = metricColumns(issue.metrics, metric, issue.statistic);
    const rows = DIAGNOSED_ROWS.filter((r) => r < issue.metrics.timestamps.length);
    const samples = await diagnose(twin, issue.targetNode, columns, rows, baselineOf(0));
    const first = samples.find((s) => s.anomalous === true);
    const ranking = first?.rootCauses.map((c) => c.variable) ?? [];
    const noiseRanking = [...(first?.rootCauses ?? [])].sort((a, b) => (a.noiseScore ?? 1) - (b.noiseScore ?? 1)).map((c) => c.variable);
    const firstRank = first?.rootCauses.filter((c) => c.rank === 1).map((c) => c.variable) ?? [];
    results.push({ issue, basis: first?.anomalyBasis ?? null, ranking, firstRank, noiseRanking });
    if (verbose) {
      const causes = first?.rootCauses.slice(0, 3).map((c) => `${c.variable} ${c.contribution.toFixed(1)} (noise ${c.noiseScore?.toExponential(1) ?? 'n/a'})`).join('; ');
      console.log(`${scenario}${withBaseline ? ' + baseline' : ''} ${metric} ${issue.split}/${issue.name}: truth ${issue.rootCause}; ${first ? `row ${first.index + DIAGNOSED_ROWS[0]!} (${first.anomalyBasis}): ${causes}` : 'not anomalous'}`);
    }
  }
  // Specificity: the publishers' split points, a twin per split, windows of held-out normal rows.
  const targets = [...new Set(issues.map((i) => i.targetNode))];
  let windows = 0;
  let falseAlarmWindows = 0;
  let heldOutRows = 0;
  let flaggedRows = 0;
  for (let split = Math.floor(n / 2); split < n - 3; split += Math.floor(n * 0.1)) {
    const splitTwin = fitTwin(normal, calls, 0, split);
    const heldOut = Array.from({ length: n - split }, (_, k) => split + k);
    for (const target of targets) {
      if (!withBaseline) {
        const samples = await diagnose(splitTwin, target, normal, heldOut);
        const flagged = samples.map((s) => s.anomalous === true);
        heldOutRows += samples.filter((s) => s.targetAnomalous !== null).length;
        flaggedRows += flagged.filter(Boolean).length;
        for (let start = 0; start + WINDOW <= heldOut.length; start += WINDOW) {
          windows++;
          if (DIAGNOSED_ROWS.some((r) => flagged[start + r])) falseAlarmWindows++;
        }
        continue;
      }
      // With a baseline each window's first rows are its baseline; its diagnosed rows are the rows judged.
      for (let start = 0; start + WINDOW <= heldOut.length; start += WINDOW) {
        const samples = await diagnose(splitTwin, target, normal, DIAGNOSED_ROWS.map((r) => heldOut[start + r]!), baselineOf(heldOut[start]!));
        windows++;
        heldOutRows += samples.filter((s) => s.targetAnomalous !== null).length;
        const flagged = samples.filter((s) => s.anomalous === true).length;
        flaggedRows += flagged;
        if (flagged > 0) falseAlarmWindows++;
      }
    }
  }
  return { scenario, baseline: withBaseline, metric, issues: results, windows, falseAlarmWindows, heldOutRows, flaggedRows };
}

const share = (hits: number, total: number) => (total === 0 ? 'n/a' : (hits / total).toFixed(2));
const topK = (results: IssueResult[], k: number, of: 'ranking' | 'noiseRanking' = 'ranking') => results.filter((r) => r[of].slice(0, k).includes(r.issue.rootCause)).length;
const baseline = (results: IssueResult[]) => `${share(topK(results, 1, 'noiseRanking'), results.length)} / ${share(topK(results, 3, 'noiseRanking'), results.length)}`;

function table(rows: Row[]): string {
  const lines = [
    '| scenario | target metric | issues | diagnosed (target anomalous + reached from upstream) | top-1 recall | top-3 recall | injected service among those ranked first, ties included | baseline top-1 / top-3 (own noise score only) | specificity (windows) | false-alarm rate (rows) |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const diagnosed = (issues: IssueResult[]) => {
    const count = (basis: IssueResult['basis']) => issues.filter((i) => i.basis === basis).length;
    return `${issues.length - count(null)} (${count('target')} + ${count('upstream')})`;
  };
  const tiedFirst = (issues: IssueResult[]) => share(issues.filter((i) => i.firstRank.includes(i.issue.rootCause)).length, issues.length);
  const line = (scenario: string, metric: string, issues: IssueResult[], windows: number, alarms: number, held: number, flagged: number, bold: (s: string) => string) =>
    `| ${bold(scenario)} | ${bold(metric)} | ${issues.length} | ${diagnosed(issues)} | ${bold(share(topK(issues, 1), issues.length))} | ${bold(share(topK(issues, 3), issues.length))} | ` +
    `${tiedFirst(issues)} | ${baseline(issues)} | ${bold(share(windows - alarms, windows))} (${windows}) | ${bold((flagged / Math.max(held, 1)).toFixed(4))} (${held}) |`;
  const label = (scenario: string, baseline: boolean) => `${scenario}${baseline ? ' + baseline' : ''}`;
  for (const withBaseline of [false, true]) {
    const variant = rows.filter((r) => r.baseline === withBaseline);
    for (const r of variant) lines.push(line(label(r.scenario, withBaseline), r.metric, r.issues, r.windows, r.falseAlarmWindows, r.heldOutRows, r.flaggedRows, (x) => x));
    for (const metric of METRICS) {
      const these = variant.filter((r) => r.metric === metric);
      const sum = (of: (r: Row) => number) => these.reduce((s, r) => s + of(r), 0);
      lines.push(line(label('both', withBaseline), metric, these.flatMap((r) => r.issues), sum((r) => r.windows), sum((r) => r.falseAlarmWindows), sum((r) => r.heldOutRows), sum((r) => r.flaggedRows), (x) => `**${x}**`));
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const started = performance.now();
  const header = `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineLine()}. Default targetFpr ${DEFAULT_TARGET_FPR}.`;
  const rows: Row[] = [];
  for (const withBaseline of [false, true]) for (const scenario of SCENARIOS) for (const metric of METRICS) rows.push(await evaluateScenario(scenario, metric, withBaseline));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const section = [
    SECTION,
    '',
    header,
    '',
    table(rows),
    '',
    `Goal (ANCHORS.md): top-1 >= 0.65 latency and >= 0.85 availability, top-3 >= 0.85, specificity >= 0.6, false-alarm rate within 2x of targetFpr (${DEFAULT_TARGET_FPR}). ` +
      'Peer (DoWhy anomaly traversal, published with the data): top-1 latency 0.57, availability 0.67-0.83; top-3 latency 0.57-1.0; specificity 0.17-0.33 (latency). ' +
      `Whole run ${seconds} s (twin fits, calibration and Shapley attribution, TS reference kernels).`,
    '',
    'Protocol: the twin is fitted on normal operation over the reversed call graph (callee -> caller) with the issue\'s statistic (Average); ' +
      'each issue is diagnosed at its third row, or the next row the engine diagnoses (the target anomalous, or within its normal range ' +
      'but reached by an anomaly upstream; targetFpr is split between the two); a miss when none is. Specificity: windows of ' +
      '5 held-out normal rows after each of the publishers\' split points (twin refitted before the split), a false alarm when a row among ' +
      'rows 3-5 of the window is diagnosed. The peer\'s specificity searched the whole held-out remainder for one anomalous row, a stricter test. ' +
      'Baseline (same run, same diagnoses): the candidate root causes ranked by their own noise score alone, without the attribution and ' +
      'single-fault ranking. "+ baseline" rows send the rows before the diagnosed ones (an issue\'s first two rows, a window\'s first two) as ' +
      '`baselineSamples`, so anomalies already there before are set aside as standing conditions; their false-alarm rate counts the ' +
      'diagnosed rows of the windows only.',
    '',
    'Why availability still misses: PetSite\'s availability (the target of every availability issue) dips in normal operation too, while ' +
      'most services it calls were at exactly 100% in every normal row. A fault at such a service often leaves PetSite inside its own normal ' +
      'range; those rows are now diagnosed from upstream (the "+" count in the fourth column) instead of being missed. What remains: ' +
      '(1) services that never varied in training and fail together, with no link between them in the call graph (PetSearch and the ' +
      'load balancer in front of it, servi-searc): the twin cannot tell them apart and says so with a shared rank (the seventh column counts ' +
      'the injected service among those ranked first); (2) in high traffic, Evidently and the price lambdas sit at 0% availability in every ' +
      'normal row and at 100% in every issue, whatever was injected; their chain reaches PetSite through the state machine, so a fault ' +
      'elsewhere that is as improbable to the twin ranks behind it. That chain is already at 100% in the rows before each fault, so with ' +
      'those rows as the baseline it is set aside (high-traffic availability top-3 0.75 -> 1.00). With the baseline, the remaining top-1 misses ' +
      'are the load balancer in front of the injected service ranked first, tied or nearly (servi-searc, servi-lista), and one latency fault ' +
      '(PetSearch, high-traffic train issue 3: its latency peaked in the second row) already under way in the rows taken as its baseline.',
    '',
    'False alarms (2026-11-28): a value is now judged anomalous against the margin the training rows showed (the fit keeps 256 ' +
      'order statistics of each variable), not the margin the linear twin implies. The twin\'s simulated PetSite latency ended well inside ' +
      'the range the training rows reach (high traffic, first split: its 99.75% point 0.112 s against the data\'s 0.127 s; low traffic: its ' +
      'lower end above rows the data had seen), so held-out normal rows were flagged at 0.0233 (latency) against a goal of 0.02; now 0.0161, ' +
      'with the same recall. The attribution still reads the target\'s improbability under the twin, which is smooth in the value (attributed ' +
      'by the training margin, whose ties at 100% availability make it a step, availability top-3 fell from 0.83 to 0.79 when tried). The kept ' +
      'values make a 50-node twin\'s model 24% larger (1.01 -> 1.26 MB of JSON); a 10k-sample intervention on it, measured back to back on ' +
      'a loaded machine, took 215 ms before and 222 ms after.',
  ].join('\n');
  console.log(section);
  if (process.env.BENCH_WRITE !== '0') writeSection(resolve(REPO_ROOT, 'BENCHMARKS.md'), SECTION, `${section}\n`);
}

await main();
