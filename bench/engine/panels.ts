/**
 * Multi-environment (panel) learning against ANCHORS.md ("Sachs 9 environments") and issue 16's generated panels.
 *
 * Sachs: the 7,466 rows of nine stimulation/inhibition conditions (`derived_sachs_9env_with_condition.csv`), the
 * condition as the environment. Ours: CD-NOD (engine/panel/discover.ts) at alpha 0.01; pooled PC in the same run:
 * our static discovery on the same rows without the environment. SHD of the learned pattern (reversible edges
 * undirected) to the 17 consensus edges as a DAG (every edge directed: interventions identify it), and to its CPDAG.
 * Gating: edges out of each condition's intervened molecule (g0076/pma: pkc; b2camp: pka; u0126: mek; psitect:
 * pip2; aktinhib: akt; ly: pip3 via PI3K), as flagged among the learned edges.
 * Generated (test/helpers/panel.ts; 5 variables, 2 of 5 edges gated to 40% / 60% of environments, coefficients
 * varying 25% per environment, intercept shifts, environment sizes log-uniform 30..400 rows, and a row with
 * 300..3,000): gated-edge F1,
 * agreement error, per-environment effect of b on c (median relative error; beside it the error of the Bayes posterior
 * under the truth's own random-effects prior: what the rows allow), held-out mse of partial pooling
 * against each environment fitted alone (small environments) and the pooled model.
 *
 * Temporal panels (test/helpers/temporal-panel.ts; 4 variables, 7 links at lags 0 and 1, the same-step y -> z gated
 * to half the environments, x -> w's coefficient varying 25% per environment, z's level shifting, environment
 * lengths log-uniform): J-PCMCI+ link F1 and the same-step orientation, gated F1 and agreement error (judged as the
 * learner judges them), forecasts 5 steps past each environment's end against the oracle's (the true model's mean
 * path) with each environment fitted alone as the in-run baseline, and the held-out one-step mse of z on the small
 * environments.
 *
 * Run: `make bench-panels`. Env: BENCH_WRITE=0, BENCH_PANEL_SEEDS (default 5).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadWasmKernels } from '../../src/compute/wasm.js';
import { discoverStatic } from '../../src/engine/discovery/discover-static.js';
import { categoricalColumn, continuousColumn, frameOf } from '../../src/engine/frame.js';
import { dagToCpdag } from '../../src/engine/graph/cpdag.js';
import { structuralHammingDistance } from '../../src/engine/graph/metrics.js';
import type { PdagEdge } from '../../src/engine/graph/pdag.js';
import { discoverPanel } from '../../src/engine/panel/discover.js';
import { judgeEdges } from '../../src/engine/panel/evidence.js';
import { evaluatePanel, fitPanel, randomSplit, shardStatistics, statisticsPlan } from '../../src/engine/panel/fit.js';
import { environmentModel } from '../../src/engine/panel/model.js';
import { invert } from '../../src/engine/linear-algebra.js';
import { multiply } from '../../src/engine/panel/regression.js';
import { type EnvironmentSeries, discoverTemporalPanel, environmentTemporalModel, evaluateTemporalPanel, fitTemporalPanel, temporalShardStatistics } from '../../src/engine/panel/temporal.js';
import { discoverTemporal } from '../../src/engine/temporal/discover.js';
import { futureFrom } from '../../src/engine/temporal/forecast.js';
import { lagName } from '../../src/engine/temporal/lagged.js';
import { designEdges, type TemporalStructure } from '../../src/engine/temporal/model.js';
import { inferTimeline } from '../../src/engine/temporal/timeline.js';
import type { EdgeRef, Frame } from '../../src/engine/types.js';
import { panelRows, panelTruth } from '../../test/helpers/panel.js';
import { TEMPORAL_PANEL_LINKS, laplace, oraclePath, slopePanel, temporalPanelRows, temporalPanelTruth } from '../../test/helpers/temporal-panel.js';
import { machineLine, median, writeSection } from '../lib/report.js';
import { REPO_ROOT, benchmarkDataDir, readEdgeCsv } from './benchmark-data.js';

const SECTION = '## Multi-environment twins (bench/engine/panels.ts)';
const SEEDS = Number(process.env.BENCH_PANEL_SEEDS ?? 5);
const kernels = loadWasmKernels();
const INDICATOR = '(environment)';
const INTERVENED: Record<string, string[]> = { 'cd3cd28+g0076': ['pkc'], pma: ['pkc'], b2camp: ['pka'], 'cd3cd28+u0126': ['mek'], 'cd3cd28+psitect': ['pip2'], 'cd3cd28+aktinhib': ['akt'], 'cd3cd28+ly': ['pip3'] };

function sachs(): string[] {
  const dir = benchmarkDataDir();
  const [header, ...lines] = readFileSync(`${dir}/sachs/derived_sachs_9env_with_condition.csv`, 'utf8').trim().split('\n');
  const names = header!.split(',');
  const rows = lines.map((l) => l.split(','));
  const variables = names.filter((n) => n !== 'env_id' && n !== 'condition');
  const conditionAt = names.indexOf('condition');
  const frame = frameOf(variables.map((v) => continuousColumn(v, rows.map((r) => Number(r[names.indexOf(v)])))));
  const conditions = [...new Set(rows.map((r) => r[conditionAt]!))];
  const withIndicator = frameOf([...frame.columns, categoricalColumn(INDICATOR, rows.map((r) => r[conditionAt]!), conditions)]);
  const truth = readEdgeCsv(`${dir}/sachs/derived_sachs_consensus17_edges.csv`);
  const truthDag: PdagEdge[] = truth.map((e) => ({ ...e, directed: true }));
  const truthCpdag = dagToCpdag(variables, truth);
  let started = performance.now();
  const panel = discoverPanel(withIndicator, INDICATOR, { alpha: 0.01 }, kernels);
  const panelSeconds = (performance.now() - started) / 1000;
  const pattern: PdagEdge[] = panel.edges.map((e, i) => ({ source: e.source, target: e.target, directed: panel.orientations[i] !== 'reversible' }));
  started = performance.now();
  const pooled = discoverStatic(frame, { alpha: 0.01 }, kernels);
  const pooledSeconds = (performance.now() - started) / 1000;
  const ours = { dag: structuralHammingDistance(pattern, truthDag), cpdag: structuralHammingDistance(pattern, truthCpdag) };
  const base = { dag: structuralHammingDistance(pooled.cpdag, truthDag), cpdag: structuralHammingDistance(pooled.cpdag, truthCpdag) };
  const environment = Int32Array.from(rows, (r) => conditions.indexOf(r[conditionAt]!));
  const families = statisticsPlan(fitPanel(frame, environment, conditions, panel.edges, [], kernels).pooled).families;
  const judged = judgeEdges(panel.edges, families, shardStatistics(frame, environment, conditions.map((_, e) => e), { families, cpts: [] }).moments, 0.05);
  const intervened = new Set(Object.values(INTERVENED).flat());
  const expected = judged.filter((j) => intervened.has(j.source));
  const flagged = judged.filter((j) => j.gated);
  const hits = expected.filter((j) => j.gated).length;
  return [
    '### Sachs 9 environments',
    '',
    '| | SHD to the consensus DAG | SHD to its CPDAG | edges | seconds |',
    '|---|---|---|---|---|',
    `| ours: CD-NOD panel discovery | ${ours.dag} | ${ours.cpdag} | ${panel.edges.length} (${panel.orientations.filter((o) => o !== 'reversible').length} oriented) | ${panelSeconds.toFixed(2)} |`,
    `| pooled, same run (our static discovery, no environment) | ${base.dag} | ${base.cpdag} | ${pooled.edges.length} | ${pooledSeconds.toFixed(2)} |`,
    `| peer: pooled PC (ANCHORS.md) | 29 | | | |`,
    '',
    `Goal: beat pooled PC (29) by at least 30%, i.e. SHD <= 20: ${ours.dag <= 20 ? 'met' : 'NOT met'} (${(100 * (1 - ours.dag / 29)).toFixed(0)}% below). `
      + `Variables the condition changes (CD-NOD's indicator edges): ${panel.changing.join(', ') || 'none'}.`,
    `Gated edges: ${flagged.length} of ${judged.length} learned edges flagged; of the ${expected.length} learned edges out of an intervened molecule (${[...intervened].join(', ')}), ${hits} flagged `
      + `(recall ${expected.length === 0 ? 'n/a' : (hits / expected.length).toFixed(2)}). With 700-900 rows per condition nearly every mechanism differs somewhere, so flags outside that set are expected too.`,
    '',
  ];
}

function generated(): string[] {
  const lines = ['### Generated panels', '', '| environments | gated F1 | max agreement error | median effect error (b -> c) | the same, oracle prior | held-out mse of c, small environments: partial / alone / pooled | all environments: partial / pooled | seconds (discover + judge + fit) |', '|---|---|---|---|---|---|---|---|'];
  for (const [environments, sizes] of [[20, undefined], [50, undefined], [200, undefined], [50, { minRows: 300, maxRows: 3000 }]] as const) {
    const f1s: number[] = [];
    const agreementErrors: number[] = [];
    const effectErrors: number[] = [];
    const oracleErrors: number[] = [];
    const small: number[][] = [];
    const all: number[][] = [];
    const seconds: number[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const truth = panelTruth(environments, 100 * environments + seed, sizes ?? {});
      const rows = panelRows(truth, 7 + seed);
      const frame = frameOf(['a', 'b', 'c', 'd', 'e'].map((name) => continuousColumn(name, rows.map((r) => r[name] as number))));
      const sites = truth.keys.map((k) => k.slice('site='.length));
      const environment = Int32Array.from(rows, (r) => sites.indexOf(r.site as string));
      const withIndicator: Frame = frameOf([...frame.columns, categoricalColumn(INDICATOR, rows.map((r) => r.site as string), sites)]);
      const started = performance.now();
      const found = discoverPanel(withIndicator, INDICATOR, { alpha: 0.01 }, kernels);
      const panel = fitPanel(frame, environment, truth.keys, found.edges, ['site'], kernels);
      const families = statisticsPlan(panel.pooled).families;
      const judged = judgeEdges(found.edges, families, shardStatistics(frame, environment, truth.keys.map((_, e) => e), { families, cpts: [] }).moments, 0.05);
      seconds.push((performance.now() - started) / 1000);
      const flagged = new Set(judged.filter((j) => j.gated).map((j) => `${j.source}->${j.target}`));
      const tp = truth.gated.filter((g) => flagged.has(g)).length;
      f1s.push(tp === 0 ? 0 : (2 * tp) / (flagged.size + truth.gated.length));
      agreementErrors.push(Math.max(...judged.map((j) => Math.abs((j.agreementRate ?? 0) - (truth.presence[`${j.source}->${j.target}`] ?? 1)))));
      effectErrors.push(median(truth.keys.map((key, e) => {
        const node = environmentModel(panel, key).nodes.find((n) => n.name === 'c');
        const at = node?.kind === 'continuous' ? node.terms.findIndex((t) => t.parents[0] === 'b') : -1;
        const estimate = node?.kind === 'continuous' && at >= 0 ? node.coefficients[at]! : 0;
        const expected = truth.coefficients[e]!['b->c']!;
        return Math.abs(estimate - expected) / Math.abs(expected);
      })));
      const oracle = oracleEffects(truth, rows);
      oracleErrors.push(median(truth.keys.map((_, e) => Math.abs(oracle[e]! - truth.coefficients[e]!['b->c']!) / Math.abs(truth.coefficients[e]!['b->c']!))));
      const evaluation = evaluatePanel(frame, environment, truth.keys, found.edges as EdgeRef[], randomSplit(environment, truth.keys.length, 0.3, seed), 0.3, kernels);
      const c = evaluation.pooling.c!;
      small.push([c.smallPartial!, c.smallSeparate!, c.smallPooled!]);
      all.push([c.partial, c.pooled]);
    }
    const med = (xs: number[][], i: number) => median(xs.map((x) => x[i]!)).toFixed(3);
    lines.push(`| ${environments}${sizes === undefined ? '' : `, ${sizes.minRows}..${sizes.maxRows} rows each`} (${SEEDS} seeds, medians) | ${median(f1s).toFixed(2)} | ${median(agreementErrors).toFixed(3)} | ${(100 * median(effectErrors)).toFixed(1)}% | ${(100 * median(oracleErrors)).toFixed(1)}% | ${med(small, 0)} / ${med(small, 1)} / ${med(small, 2)} | ${med(all, 0)} / ${med(all, 1)} | ${median(seconds).toFixed(2)} |`);
  }
  lines.push('', 'Goals (issue 16): gated F1 >= 0.9; agreementRate within 0.1 of the truth; per-environment effects within 5% (median); partial pooling below fitting alone on the small environments. '
    + 'Gated = present in some environments and absent in others, or a coefficient whose spread across environments is at least half its size (evidence.ts); the generated coefficients vary 25% everywhere, which is not gating. '
    + 'The effect error is bounded by what each environment\'s rows can tell: with 25% true variation and 30..400 rows the estimate of one environment\'s coefficient has a standard error near 0.1. '
    + '"Oracle prior" is that bound measured: each environment\'s coefficients of c as the posterior mean given its rows, the true parents, the true noise variance and the true across-environment mean and variance of each coefficient (the best any estimator that pools linearly can do without knowing the environment\'s own coefficient).', '');
  return lines;
}

/**
 * Per environment, c's coefficient on b as the Gaussian posterior mean under the truth's own random-effects prior:
 * design [1, a, b, d] on the environment's rows, noise variance 1, prior mean and variance of each coefficient the
 * truth's mean and variance across environments.
 */
function oracleEffects(truth: ReturnType<typeof panelTruth>, rows: Array<Record<string, number | string>>): number[] {
  const terms = [() => 1, (r: Record<string, number | string>) => r.a as number, (r: Record<string, number | string>) => r.b as number, (r: Record<string, number | string>) => r.d as number];
  const across = (values: number[]) => {
    const mean = values.reduce((x, y) => x + y, 0) / values.length;
    return { mean, variance: Math.max(values.reduce((x, y) => x + (y - mean) ** 2, 0) / (values.length - 1), 1e-9) };
  };
  const priors = [across(truth.intercepts.map((i) => i.c!)), ...['a->c', 'b->c', 'd->c'].map((edge) => across(truth.coefficients.map((c) => c[edge]!)))];
  const m = terms.length;
  return truth.keys.map((key) => {
    const site = key.slice('site='.length);
    const precision = new Array<number>(m * m).fill(0);
    const rhs = priors.map((p) => p.mean / p.variance);
    for (let i = 0; i < m; i++) precision[i * m + i] = 1 / priors[i]!.variance;
    for (const row of rows) {
      if (row.site !== site) continue;
      const x = terms.map((term) => term(row));
      for (let i = 0; i < m; i++) {
        rhs[i]! += x[i]! * (row.c as number);
        for (let j = 0; j < m; j++) precision[i * m + j]! += x[i]! * x[j]!;
      }
    }
    return multiply(invert(precision, m)!, rhs, m)[2]!;
  });
}

const VARIABLES = ['x', 'y', 'z', 'w'] as const;
const HORIZON = 5;

function temporal(): string[] {
  const lines = [
    '### Temporal panels',
    '',
    '| environments | link F1 | y -> z oriented | gated F1 | max agreement error | forecast mse / oracle: partial pooling / each alone | held-out mse of z, small environments: partial / alone / pooled | seconds (discover + judge + fit) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const [environments, sizes] of [[20, { minSteps: 80, maxSteps: 400 }], [60, { minSteps: 80, maxSteps: 400 }], [200, { minSteps: 80, maxSteps: 400 }], [20, { minSteps: 400, maxSteps: 1500 }]] as const) {
    const linkF1s: number[] = [];
    const oriented: number[] = [];
    const gatedF1s: number[] = [];
    const agreementErrors: number[] = [];
    const ratios: number[][] = [];
    const small: number[][] = [];
    const seconds: number[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const truth = temporalPanelTruth(environments, 1000 * environments + seed, sizes);
      const { rows, future } = temporalPanelRows(truth, 17 + seed, HORIZON);
      const byKey = new Map(truth.keys.map((key) => [key, [] as Array<Record<string, number | string>>]));
      for (const row of rows) byKey.get(`site=${row.site}`)!.push(row);
      const series: EnvironmentSeries[] = truth.keys.map((key) => {
        const own = byKey.get(key)!;
        const stepTimes = own.map((r) => Date.parse(String(r.day)));
        return { key, frame: frameOf(VARIABLES.map((v) => continuousColumn(v, own.map((r) => r[v] as number)))), stepTimes, timeline: inferTimeline(stepTimes, 'time'), observedSteps: own.length };
      });
      const frames = series.map((s) => s.frame);
      const started = performance.now();
      const found = discoverTemporalPanel(frames, { maxLag: 2, alpha: 0.01, periods: [] }, kernels);
      const structure: TemporalStructure = { edges: found.links.map(({ source, target, lag }) => ({ source, target, lag })), seasonal: [] };
      const model = fitTemporalPanel(series, structure, ['site'], kernels);
      const plan = statisticsPlan(model.pooled);
      const judged = judgeEdges(designEdges(frames[0]!, structure).edges, plan.families, temporalShardStatistics(frames, frames.map((_, e) => e), structure, plan).moments, 0.05);
      seconds.push((performance.now() - started) / 1000);
      const links = new Set(found.links.map((l) => `${l.source}>${l.target}@${l.lag}`));
      const tp = TEMPORAL_PANEL_LINKS.filter((l) => links.has(l)).length;
      linkF1s.push((2 * tp) / (links.size + TEMPORAL_PANEL_LINKS.length));
      oriented.push(found.links.some((l) => l.source === 'y' && l.target === 'z' && l.lag === 0 && l.orientation === 'compelled') ? 1 : 0);
      const linkOf = (j: { source: string; target: string }) => {
        const link = found.links.find((l) => l.target === j.target && j.source === lagName(l.source, l.lag));
        return link === undefined ? '' : `${link.source}>${link.target}@${link.lag}`;
      };
      const flagged = new Set(judged.filter((j) => j.gated).map(linkOf));
      const gatedHit = flagged.has('y>z@0') ? 1 : 0;
      gatedF1s.push(gatedHit === 0 ? 0 : 2 / (flagged.size + 1));
      agreementErrors.push(Math.max(...judged.filter((j) => TEMPORAL_PANEL_LINKS.includes(linkOf(j))).map((j) => Math.abs((j.agreementRate ?? 0) - (linkOf(j) === 'y>z@0' ? truth.presence : 1)))));
      const alone = fitTemporalPanel(series, structure, ['site'], kernels, 'separate');
      const sums = [0, 0, 0];
      truth.keys.forEach((key, e) => {
        const last = byKey.get(key)!.at(-1)!;
        const expected = oraclePath(truth, e, { x: last.x as number, y: last.y as number, z: last.z as number, w: last.w as number }, HORIZON);
        const ours = [model, alone].map((m) => futureFrom(environmentTemporalModel(m, key), { report: series[e]!.frame.nRows, simulate: series[e]!.frame.nRows }, HORIZON, { samples: 300, seed: e }));
        for (let h = 0; h < HORIZON; h++) {
          for (const v of VARIABLES) {
            const actual = future[e]![h]![v];
            ours.forEach((paths, k) => (sums[k]! += ((paths[v]![h]!.reduce((a, b) => a + b, 0) / paths[v]![h]!.length) - actual) ** 2));
            sums[2]! += (expected[h]![v] - actual) ** 2;
          }
        }
      });
      ratios.push([sums[0]! / sums[2]!, sums[1]! / sums[2]!]);
      const z = evaluateTemporalPanel(frames, truth.keys, structure, 0.3, kernels).panelEvaluation.pooling.z;
      if (z !== undefined) small.push([z.smallPartial!, z.smallSeparate!, z.smallPooled!]);
    }
    const med = (xs: number[][], i: number) => median(xs.map((x) => x[i]!)).toFixed(3);
    lines.push(`| ${environments}, ${sizes.minSteps}..${sizes.maxSteps} steps each (${SEEDS} seeds, medians) | ${median(linkF1s).toFixed(2)} | ${oriented.filter((o) => o === 1).length} of ${SEEDS} | ${median(gatedF1s).toFixed(2)} | ${median(agreementErrors).toFixed(3)} | ${med(ratios, 0)} / ${med(ratios, 1)} | ${med(small, 0)} / ${med(small, 1)} / ${med(small, 2)} | ${median(seconds).toFixed(2)} |`);
  }
  lines.push('', 'Goals (issue 16): gated F1 >= 0.9; agreementRate within 0.1 of the truth; per-environment forecasts within 10% of the oracle\'s mse (ratio <= 1.10). '
    + 'The forecast ratio pools every environment\'s squared errors over 5 steps and 4 variables, one origin per environment (its end of data); the oracle forecasts with the true coefficients.', '');
  return lines;
}

/** Slope-only changes (test/helpers/temporal-panel.ts slopePanel) on both panel kinds: orientation of a -> b, and false alarms when nothing changes. */
function slopes(): string[] {
  const seeds = 4 * SEEDS;
  const lines = [
    '### A slope that differs across environments',
    '',
    `a -> b, both serially independent (nothing lagged orients the link), b's coefficient spread evenly over 0.2..1.6 across the environments, no level shift; ${seeds} seeds per row. Controls: the same coefficient (0.9) everywhere, with normal and with Laplace noise. Baseline in the same run: the environments' rows pooled without the environment (discoverTemporal, discoverStatic), which leaves a - b reversible.`,
    '',
    '| panel kind | environments x rows | a -> b oriented (wrong way) | pooled baseline oriented | b marked changing | controls: any variable marked changing (normal / Laplace) | controls: link oriented | seconds per discovery |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const learners = {
    temporal: {
      panel: (frames: Frame[]) => {
        const found = discoverTemporalPanel(frames, { maxLag: 1, alpha: 0.01, periods: [] }, kernels);
        return { links: found.links.filter((l) => l.lag === 0), changing: found.changing };
      },
      pooled: (frame: Frame) => discoverTemporal(frame, { maxLag: 1, alpha: 0.01, periods: [] }, kernels).links.filter((l) => l.lag === 0),
    },
    static: {
      panel: (frames: Frame[]) => {
        const found = discoverPanel(frameOf([...pooledOf(frames).columns, categoricalColumn('(environment)', frames.flatMap((f, e) => Array.from({ length: f.nRows }, () => `e${e}`)))]), '(environment)', { alpha: 0.01 }, kernels);
        return { links: found.edges.map((e, i) => ({ ...e, orientation: found.orientations[i] })), changing: found.changing };
      },
      pooled: (frame: Frame) => discoverStatic(frame, { alpha: 0.01 }, kernels).edges.map((e) => ({ ...e, orientation: e.orientationFromData ? 'compelled' : 'reversible' })),
    },
  } as const;
  type Link = { source: string; target: string; orientation?: string };
  const linkOf = (links: readonly Link[]) => links.find((l) => (l.source === 'a' && l.target === 'b') || (l.source === 'b' && l.target === 'a'));
  for (const [kind, learner] of Object.entries(learners)) {
    for (const [environments, steps] of [[6, 150], [12, 250], [30, 100]] as const) {
      const spread = Array.from({ length: environments }, (_, e) => 0.2 + (1.4 * e) / (environments - 1));
      let oriented = 0, wrong = 0, pooled = 0, changing = 0, falseNormal = 0, falseLaplace = 0, controlOriented = 0;
      const seconds: number[] = [];
      for (let seed = 1; seed <= seeds; seed++) {
        const frames = slopePanel(spread, 7000 + seed, undefined, steps);
        const started = performance.now();
        const found = learner.panel(frames);
        seconds.push((performance.now() - started) / 1000);
        const ab = linkOf(found.links);
        if (ab?.orientation === 'compelled') (ab.source === 'a' ? oriented++ : wrong++);
        if (found.changing.includes('b')) changing++;
        if (linkOf(learner.pooled(pooledOf(frames)))?.orientation === 'compelled') pooled++;
        for (const [noise, count] of [[undefined, () => falseNormal++], [laplace, () => falseLaplace++]] as const) {
          const control = learner.panel(slopePanel(spread.map(() => 0.9), 8000 + seed, noise, steps));
          if (control.changing.length > 0) count();
          if (linkOf(control.links)?.orientation === 'compelled') controlOriented++;
        }
      }
      const share = (k: number, of = seeds) => `${k} of ${of}`;
      lines.push(`| ${kind} | ${environments} x ${steps} | ${share(oriented)} (${wrong}) | ${share(pooled)} | ${share(changing)} | ${share(falseNormal)} / ${share(falseLaplace)} | ${share(controlOriented, 2 * seeds)} | ${median(seconds).toFixed(3)} |`);
    }
  }
  lines.push('', 'The indicator\'s tests (engine/discovery/context-tests.ts) see a changed slope or noise scale as well as a changed level: in the J-PCMCI+ search for temporal panels, and after the static search for static ones (engine/panel/context-edges.ts). Before them, both kinds left a -> b reversible here, as the pooled baselines do. Alpha 0.01: a control\'s two variables give two chances of a false indicator edge per seed.', '');
  return lines;
}

/** The environments' rows as one frame, without the environment. */
function pooledOf(frames: readonly Frame[]): Frame {
  return frameOf(['a', 'b'].map((name) => continuousColumn(name, frames.flatMap((f) => Array.from((f.columns.find((c) => c.name === name) as { values: Float64Array }).values)))));
}

const section = [SECTION, '', machineLine(), '', ...sachs(), ...generated(), ...temporal(), ...slopes()].join('\n');
console.log(section);
if (process.env.BENCH_WRITE !== '0') writeSection(resolve(REPO_ROOT, 'BENCHMARKS.md'), SECTION, section);
