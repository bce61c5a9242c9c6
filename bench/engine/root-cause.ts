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
 *   and move on to the next rows while the target is not anomalous); the first row whose target is anomalous is
 *   diagnosed. A miss when no row is anomalous. Top-k: the injected node among the first k root causes.
 * - Specificity (rca_task.evaluate_specificity's splits): the twin is refitted on the normal rows before each split
 *   point (n/2, n/2 + n/10, ... < n - 3) and the rows after it are cut into windows of 5 consecutive rows, shaped
 *   like an issue; a window is a false alarm when the target is anomalous in its rows 3-5. Specificity = share of
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

async function diagnose(twin: Twin, target: string, columns: Map<string, Float64Array>, rows: number[]): Promise<DiagnosedSample[]> {
  const outcome = await runRootCauseAnalysis(twin.model, { type: 'root_cause_analysis', targetVariable: target, samples: records(columns, twin.variables, rows) }, context);
  return outcome.details.samples as DiagnosedSample[];
}

interface IssueResult {
  issue: Issue;
  diagnosed: boolean;
  ranking: string[];
  /** Baseline in the same run: the same candidates ranked by their own noise score alone (no attribution). */
  noiseRanking: string[];
  /** Undiagnosed issues: the injected node's value left the whole range it had in normal operation. */
  rootOutsideNormal: boolean;
}

/** Whether any of the rows puts the node outside the range [min, max] of its normal values. */
function outsideNormal(normal: Map<string, Float64Array>, columns: Map<string, Float64Array>, node: string, rows: number[]): boolean {
  const values = [...(normal.get(node) ?? [])].filter((v) => !Number.isNaN(v));
  if (values.length === 0) return false;
  const [low, high] = [Math.min(...values), Math.max(...values)];
  return rows.some((r) => {
    const x = columns.get(node)?.[r];
    return x !== undefined && !Number.isNaN(x) && (x < low || x > high);
  });
}

interface Row {
  scenario: string;
  metric: (typeof METRICS)[number];
  issues: IssueResult[];
  windows: number;
  falseAlarmWindows: number;
  heldOutRows: number;
  flaggedRows: number;
}

async function evaluateScenario(scenario: string, metric: (typeof METRICS)[number]): Promise<Row> {
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
    const samples = await diagnose(twin, issue.targetNode, columns, rows);
    const first = samples.find((s) => s.targetAnomalous === true);
    const ranking = first?.rootCauses.map((c) => c.variable) ?? [];
    const noiseRanking = [...(first?.rootCauses ?? [])].sort((a, b) => (a.noiseScore ?? 1) - (b.noiseScore ?? 1)).map((c) => c.variable);
    results.push({ issue, diagnosed: first !== undefined, ranking, noiseRanking, rootOutsideNormal: first === undefined && outsideNormal(normal, columns, issue.rootCause, rows) });
    if (verbose) {
      const causes = first?.rootCauses.slice(0, 3).map((c) => `${c.variable} ${c.contribution.toFixed(1)} (noise ${c.noiseScore?.toExponential(1) ?? 'n/a'})`).join('; ');
      console.log(`${scenario} ${metric} ${issue.split}/${issue.name}: truth ${issue.rootCause}; ${first ? `row ${first.index + DIAGNOSED_ROWS[0]!}: ${causes}` : 'target not anomalous'}`);
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
      const samples = await diagnose(splitTwin, target, normal, heldOut);
      const flagged = samples.map((s) => s.targetAnomalous === true);
      heldOutRows += samples.filter((s) => s.targetAnomalous !== null).length;
      flaggedRows += flagged.filter(Boolean).length;
      for (let start = 0; start + WINDOW <= heldOut.length; start += WINDOW) {
        windows++;
        if (DIAGNOSED_ROWS.some((r) => flagged[start + r])) falseAlarmWindows++;
      }
    }
  }
  return { scenario, metric, issues: results, windows, falseAlarmWindows, heldOutRows, flaggedRows };
}

const share = (hits: number, total: number) => (total === 0 ? 'n/a' : (hits / total).toFixed(2));
const topK = (results: IssueResult[], k: number, of: 'ranking' | 'noiseRanking' = 'ranking') => results.filter((r) => r[of].slice(0, k).includes(r.issue.rootCause)).length;
const baseline = (results: IssueResult[]) => `${share(topK(results, 1, 'noiseRanking'), results.length)} / ${share(topK(results, 3, 'noiseRanking'), results.length)}`;

function table(rows: Row[]): string {
  const lines = [
    '| scenario | target metric | issues | target anomalous | not anomalous, root cause outside its normal range | top-1 recall | top-3 recall | top-1 / top-3 where the target is anomalous | baseline top-1 / top-3 (own noise score only) | specificity (windows) | false-alarm rate (rows) |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const undiagnosed = (issues: IssueResult[]) => issues.filter((i) => i.rootOutsideNormal).length;
  const diagnosedRecall = (issues: IssueResult[]) => {
    const seen = issues.filter((i) => i.diagnosed);
    return `${share(topK(seen, 1), seen.length)} / ${share(topK(seen, 3), seen.length)}`;
  };
  for (const r of rows) {
    lines.push(`| ${r.scenario} | ${r.metric} | ${r.issues.length} | ${r.issues.filter((i) => i.diagnosed).length} | ${undiagnosed(r.issues)} | ${share(topK(r.issues, 1), r.issues.length)} | ${share(topK(r.issues, 3), r.issues.length)} | ${diagnosedRecall(r.issues)} | ${baseline(r.issues)} | ${share(r.windows - r.falseAlarmWindows, r.windows)} (${r.windows}) | ${(r.flaggedRows / Math.max(r.heldOutRows, 1)).toFixed(4)} (${r.heldOutRows}) |`);
  }
  for (const metric of METRICS) {
    const these = rows.filter((r) => r.metric === metric);
    const issues = these.flatMap((r) => r.issues);
    const windows = these.reduce((s, r) => s + r.windows, 0);
    const alarms = these.reduce((s, r) => s + r.falseAlarmWindows, 0);
    const held = these.reduce((s, r) => s + r.heldOutRows, 0);
    const flagged = these.reduce((s, r) => s + r.flaggedRows, 0);
    lines.push(`| **both** | **${metric}** | ${issues.length} | ${issues.filter((i) => i.diagnosed).length} | ${undiagnosed(issues)} | **${share(topK(issues, 1), issues.length)}** | **${share(topK(issues, 3), issues.length)}** | ${diagnosedRecall(issues)} | ${baseline(issues)} | **${share(windows - alarms, windows)}** (${windows}) | **${(flagged / Math.max(held, 1)).toFixed(4)}** (${held}) |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const started = performance.now();
  const header = `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineLine()}. Default targetFpr ${DEFAULT_TARGET_FPR}.`;
  const rows: Row[] = [];
  for (const scenario of SCENARIOS) for (const metric of METRICS) rows.push(await evaluateScenario(scenario, metric));
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
      'each issue is diagnosed at its third row, or the next row whose target is anomalous; a miss when none is. Specificity: windows of ' +
      '5 held-out normal rows after each of the publishers\' split points (twin refitted before the split), a false alarm when the target is ' +
      'anomalous in rows 3-5 of the window. The peer\'s specificity searched the whole held-out remainder for one anomalous row, a stricter test. ' +
      'Baseline (same run, same diagnoses): the candidate root causes ranked by their own noise score alone, without the attribution and ' +
      'single-fault ranking.',
    '',
    'Why availability misses: PetSite\'s availability (the target of every availability issue) dips in normal operation too (low traffic: ' +
      'its 1st percentile is 97.0%, once 40.7%), while most services it calls were at exactly 100% in every normal row. In the issues counted ' +
      'in the fifth column the injected service fell below anything it showed in normal operation (e.g. petlistadoptions at 95.5-98.5%), but ' +
      'PetSite stayed above its own 1% tail at every diagnosed row, so no detector calibrated to targetFpr on the target can flag those rows ' +
      'without flagging normal ones as often; the protocol then counts a miss. That is the data, not the ranking: where the target is anomalous ' +
      'the ranking finds the injected service first in the share the eighth column gives. The rest of the gap is services that never varied in ' +
      'normal operation: several deviate together during a fault, each "impossible" for its point-mass model, so the twin cannot tell from ' +
      'their own noise which failed first and falls back to the graph (upstream first).',
  ].join('\n');
  console.log(section);
  if (process.env.BENCH_WRITE !== '0') writeSection(resolve(REPO_ROOT, 'BENCHMARKS.md'), SECTION, `${section}\n`);
}

await main();
