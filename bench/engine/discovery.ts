/**
 * Static causal discovery against ANCHORS.md ("Static discovery"): accuracy (SHD of our CPDAG to the truth CPDAG,
 * causal-learn's definition; skeleton F1) and wall time of `discoverStatic` with default options on every static
 * row -- the bnlearn discrete networks (10k rows), causal-learn's ten linear-Gaussian sets (pair 4 skipped, it is
 * mislabelled), seeded ER2 linear-Gaussian graphs of 50 and 100 variables (the literature's ER2 -- NOTEARS, gCastle,
 * causal-learn: an Erdos-Renyi DAG with 2d expected edges, i.e. expected degree 4; simulate.ts `randomModel(d, 4, ..)`,
 * weights uniform on +-[0.5, 2], N(0, 1) noise, 10k rows; model seeds 1000.., sample seeds 2000..) and the 853 observational Sachs rows against the 17 consensus
 * edges -- side by side with the peer figure and our goal. Time excludes reading the data and one untimed warm-up
 * run per data set (WASM instantiation, JIT); a single data set is timed three times and the median kept. Kernels:
 * the WASM build when build/kernels.wasm exists, else the TypeScript reference (the output says which).
 *
 * Run: `npx tsc -p tsconfig.json --outDir .dist-engine && node .dist-engine/bench/engine/discovery.js`
 * Env: BENCH_DATA_DIR (default ../shared/benchmarks/data), BENCH_WRITE=0 (do not touch BENCHMARKS.md),
 *      BENCH_ONLY=<substring> (run only rows whose label contains it), BENCH_ER_SEEDS (default 3).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Kernels } from '../../src/compute/kernels.js';
import { referenceKernels } from '../../src/compute/reference.js';
import { loadWasmKernels } from '../../src/compute/wasm.js';
import { discoverStatic } from '../../src/engine/discovery/discover-static.js';
import { dagToCpdag } from '../../src/engine/graph/cpdag.js';
import { skeletonF1, structuralHammingDistance } from '../../src/engine/graph/metrics.js';
import type { PdagEdge } from '../../src/engine/graph/pdag.js';
import { modelEdges, randomModel, sampleModel } from '../../src/engine/simulate.js';
import type { Frame } from '../../src/engine/types.js';
import { machineLine, median, writeSection } from '../lib/report.js';
import { benchmarkDataDir, readEdgeCsv, readGraphText, readTable, REPO_ROOT } from './benchmark-data.js';
import { bifEdges, readBif, sampleBif } from './bif.js';

const SECTION = '## Static discovery (bench/engine/discovery.ts)';

interface Case {
  frame: Frame;
  truth: PdagEdge[];
}

interface Row {
  label: string;
  shape: string;
  peer: string;
  goal: { shd: number; seconds?: number; text: string };
  /** One or more cases; the row reports the median SHD, F1 and seconds over them. */
  cases: () => Case[];
  note?: string;
  /** Large rows are timed once, without a warm-up run (their first run is the measurement). */
  once?: boolean;
}

function loadKernels(): { kernels: Kernels; name: string } {
  if (existsSync(resolve(REPO_ROOT, 'build/kernels.wasm'))) return { kernels: loadWasmKernels(), name: 'WebAssembly (build/kernels.wasm)' };
  return { kernels: referenceKernels, name: 'TypeScript reference (build/kernels.wasm not found)' };
}

function truthCpdag(nodes: string[], edges: { source: string; target: string }[]): PdagEdge[] {
  return dagToCpdag(nodes, edges);
}

function bnlearnCase(dir: string, net: string): Case[] {
  const frame = readTable(`${dir}/bnlearn_discrete_10000/data/${net}.txt`, 'categorical');
  const truth = readGraphText(`${dir}/bnlearn_discrete_10000/truth_dag_graph/${net}.graph.txt`);
  return [{ frame, truth: truthCpdag(frame.columns.map((c) => c.name), truth.edges) }];
}

/** ER2 as in the literature: expected number of edges 2p, i.e. expected degree 4 (simulate.ts counts degree). */
const ER2_EXPECTED_DEGREE = 4;

function erCases(p: number, seeds: number, degree = ER2_EXPECTED_DEGREE): Case[] {
  return Array.from({ length: seeds }, (_, s) => {
    const model = randomModel(p, degree, 1000 + s);
    const frame = sampleModel(model, 10_000, 2000 + s);
    return { frame, truth: truthCpdag(model.nodes.map((n) => n.name), modelEdges(model)) };
  });
}

function rows(dir: string): Row[] {
  const erSeeds = Number(process.env.BENCH_ER_SEEDS ?? 3);
  const bn = (net: string, shape: string, peer: string, shd: number, seconds?: number): Row => ({
    label: `bnlearn ${net}${net === 'sachs' ? ' (discrete)' : ''}`, shape, peer,
    goal: { shd, seconds, text: `SHD <= ${shd}${seconds === undefined ? '' : `, <= ${seconds} s`}` },
    cases: () => bnlearnCase(dir, net),
  });
  return [
    bn('asia', '10k x 8', 'PC: SHD 5, 0.06 s', 4),
    bn('sachs', '10k x 11', 'PC: SHD 14, 0.30 s', 10),
    bn('child', '10k x 20', 'PC: SHD 9, 2.6 s', 8, 0.5),
    bn('insurance', '10k x 27', 'PC: SHD 25, 4.7 s', 20, 1),
    bn('alarm', '10k x 37', 'PC: SHD 5, 2.4 s (pgmpy 0.67 s)', 5, 0.5),
    // Harder rows: half the peer's SHD, each under 5 s. water: 17 of its 66 true edges touch six columns that are
    // constant in this sample, which no method can find, so its goal is 25 rather than half of 39.
    bn('water', '10k x 32', 'PC: SHD 39', 25, 5),
    bn('barley', '10k x 48', 'PC: SHD 38', 19, 5),
    bn('hepar2', '10k x 70', 'PC: SHD 80', 40, 5),
    bn('win95pts', '10k x 76', 'PC: SHD 52', 26, 5),
    {
      label: 'causal-learn linear (9 sets, median)', shape: '10k x 20', peer: 'PC: SHD 4, 1.1 s; GES: SHD 0, 1.0 s',
      goal: { shd: 2, seconds: 0.3, text: 'median SHD <= 2, <= 0.3 s' },
      cases: () => [1, 2, 3, 5, 6, 7, 8, 9, 10].map((i) => {
        const frame = readTable(`${dir}/causal_learn_linear10/data_linear_${i}.txt`, 'continuous');
        const truth = readGraphText(`${dir}/causal_learn_linear10/graph.${i}.txt`);
        return { frame, truth: truthCpdag(frame.columns.map((c) => c.name), truth.edges) };
      }),
    },
    {
      label: `synthetic ER2 50 vars (${erSeeds} seeds, median)`, shape: '10k x 50', peer: 'PC: SHD 14, 6.7 s; GES: SHD 7, 16.8 s',
      goal: { shd: 7, seconds: 2, text: 'SHD <= 7, <= 2 s' }, cases: () => erCases(50, erSeeds),
    },
    {
      label: `synthetic ER2 100 vars (${erSeeds} seeds, median)`, shape: '10k x 100', peer: 'PC: SHD 121, 60.5 s',
      goal: { shd: 40, seconds: 15, text: 'SHD <= 40, <= 15 s' }, cases: () => erCases(100, erSeeds),
    },
    {
      label: 'Sachs 853 observational (continuous)', shape: '853 x 11', peer: 'PC: SHD 11; GES: SHD 11',
      goal: { shd: 9, text: 'SHD <= 9' },
      cases: () => {
        const frame = readTable(`${dir}/sachs/derived_sachs_853_cd3cd28_observational.csv`, 'continuous');
        const truth = readEdgeCsv(`${dir}/sachs/derived_sachs_consensus17_edges.csv`);
        return [{ frame, truth: truthCpdag(frame.columns.map((c) => c.name), truth) }];
      },
    },
    {
      label: `synthetic ER4 50 vars (${erSeeds} seeds, median)`, shape: '10k x 50', peer: 'PC: SHD 201, 63 s',
      goal: { shd: 20, text: 'SHD <= 20' }, cases: () => erCases(50, erSeeds, 2 * ER2_EXPECTED_DEGREE),
    },
    {
      label: 'andes (BIF, 10k rows sampled with seed 7)', shape: '10k x 223', peer: 'not measured',
      goal: { shd: 34, seconds: 60, text: 'SHD <= 34 (10% of 338 edges), < 60 s' }, once: true,
      cases: () => {
        const net = readBif(`${dir}/bif/andes.bif`);
        return [{ frame: sampleBif(net, 10_000, 7), truth: truthCpdag(net.names, bifEdges(net)) }];
      },
    },
    {
      label: `synthetic ER2 200 vars (${erSeeds} seeds, median)`, shape: '10k x 200', peer: 'PC at 100 vars: 60.5 s',
      goal: { shd: Infinity, seconds: 60, text: '< 60 s; SHD and memory reported' }, cases: () => erCases(200, erSeeds), once: true,
    },
    {
      label: `synthetic ER2 500 vars (${erSeeds} seeds, median)`, shape: '10k x 500', peer: 'PC at 100 vars: 60.5 s',
      goal: { shd: Infinity, seconds: 300, text: '< 300 s; SHD and memory reported' }, cases: () => erCases(500, erSeeds), once: true,
    },
  ];
}

async function main(): Promise<void> {
  const dir = benchmarkDataDir();
  const { kernels, name } = loadKernels();
  const only = process.env.BENCH_ONLY;
  const header = `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineLine()}. Kernels: ${name}.`;
  console.log(header);
  const lines = ['| data (rows x vars) | SHD | skeleton F1 | seconds | of which PC skeleton | CI tests | peak memory (MB) | peer | our goal | met |', '|---|---:|---:|---:|---:|---:|---:|---|---|---|'];
  for (const row of rows(dir)) {
    if (only && !row.label.includes(only)) continue;
    const cases = row.cases();
    const shds: number[] = [];
    const f1s: number[] = [];
    const seconds: number[] = [];
    const tests: number[] = [];
    const skeletonSeconds: number[] = [];
    let stopped = 0;
    for (const c of cases) {
      // A single data set is timed three times (the machine is shared; the answer is deterministic).
      const times: number[] = [];
      // Large rows get the goal's time as their budget (the engine's default is 60 s); a search stopped by it says so.
      const options = row.once && row.goal.seconds !== undefined ? { timeBudgetMs: row.goal.seconds * 1000 } : {};
      let result = row.once ? null : discoverStatic(c.frame, options, kernels);
      const skeletonTimes: number[] = [];
      for (let rep = 0; rep < (cases.length === 1 && !row.once ? 3 : 1); rep++) {
        const started = performance.now();
        let skeletonDone = Number.NaN;
        // The 'orient' state is reported once the skeleton is done.
        const progress = (_: number, state: string) => {
          if (state === 'orient' && Number.isNaN(skeletonDone)) skeletonDone = performance.now();
        };
        result = discoverStatic(c.frame, options, kernels, { progress });
        times.push((performance.now() - started) / 1000);
        skeletonTimes.push((skeletonDone - started) / 1000);
      }
      seconds.push(median(times));
      skeletonSeconds.push(median(skeletonTimes));
      tests.push(result!.stats.tests);
      if (result!.stats.timedOut) stopped++;
      shds.push(structuralHammingDistance(result!.cpdag, c.truth));
      f1s.push(skeletonF1(result!.cpdag, c.truth));
    }
    // Peak resident memory of this process so far (the large rows run last, smallest first, so each one's peak is its own).
    const peakMb = Math.round(process.resourceUsage().maxRSS / 1024);
    const shd = median(shds);
    const secs = median(seconds);
    const met = shd <= row.goal.shd && (row.goal.seconds === undefined || secs <= row.goal.seconds) && stopped === 0;
    const each = cases.length > 1 ? ` (${shds.join(', ')})` : '';
    const eachSeconds = (cases.length > 1 ? ` (${seconds.map((s) => s.toFixed(2)).join(', ')})` : '') + (stopped > 0 ? `, ${stopped} stopped by the time budget` : '');
    const line = `| ${row.label} (${row.shape}) | ${shd}${each} | ${median(f1s).toFixed(2)} | ${secs.toFixed(2)}${eachSeconds} | ${median(skeletonSeconds).toFixed(2)} | ${median(tests)} | ${peakMb} | ${row.peer} | ${row.goal.text} | ${met ? 'yes' : '**no**'} |`;
    console.log(line);
    lines.push(line);
  }
  lines.push('| Sachs 9 environments (multi-environment twin) | see "Multi-environment twins" (make bench-panels) | | | | | | pooled PC SHD 29 | beat pooled PC by >= 30% | see that section |');
  const section = [
    SECTION, '', header, '',
    'SHD = structural Hamming distance of our CPDAG to the truth CPDAG (causal-learn: a missing, extra or wrongly oriented edge each count 1); skeleton F1 over adjacencies; seconds = wall time of `discoverStatic` with default options (alpha 0.05, no depth cap) after one warm-up run, data loading excluded (median of three runs for a single data set); the andes and ER2 200/500 rows run once, without a warm-up, with the goal\'s time as their budget, and say when the budget stopped the search. Peak memory is the bench process\'s resident peak so far (the large rows run last, smallest first). Rows over several data sets report medians (SHD and seconds of each in brackets). ER2 graphs follow the literature (NOTEARS, gCastle, causal-learn): an Erdos-Renyi DAG over d variables with 2d expected edges (expected degree 4: each of the d(d-1)/2 pairs is an edge with probability 4/(d-1), directed along a random causal order), linear-Gaussian with weights uniform on +-[0.5, 2] (sign and magnitude independent) and N(0, 1) noise on every node (raw scale, not standardised), 10k rows; generated by `src/engine/simulate.ts` `randomModel(d, 4, 1000 + s)` and `sampleModel(model, 10000, 2000 + s)` for seeds s = 0, 1, 2 (model seeds 1000.., sample seeds 2000..). Truth = the CPDAG of the generating DAG.',
    '', ...lines, '',
    'Searches: PC-stable skeleton and pattern, then hill climbing from the pattern and GES from the empty graph (the better kept); on continuous data seeded ' +
      'perturbation restarts and, up to 100 variables, the best order score search (BOSS, Andrews et al. 2023), kept when it scores higher: on ER4 the edge ' +
      'searches end far below the true graph\'s score (seed 0: -714,394 against -711,801), the order search reaches it. Continuous families are scored by ' +
      'extended BIC; discrete ones by quotient NML (Silander et al. 2018) with the same size prior, whose complexity is not linear in the parents\' ' +
      'configurations (barley 57 -> 37, hepar2 55 -> 44 and alarm 3 -> 1 against extended BIC in the same protocol; insurance 10 -> 15). On complete ' +
      'discrete data the order search runs on those count scores too, from the edge searches\' DAG (one start: a family costs a pass over the rows), ' +
      'over the candidates and the pairs within two steps of the pattern or the result; it is kept when it scores higher. Before it, families whose parents act only together are sought by backward elimination from the candidates near each node (jointFamilies), and on complete mixed data the order search runs on the scorer\'s gains (a categorical node\'s logistic families grown by the degenerate Gaussian estimate).',
    '',
    'Reading of the discrete rows (2026-11-27). Most of the remaining SHD is missing edges (water 33 of 46, 17 of them at the constant columns; hepar2 ' +
      '38 of 43; barley 22 of 39). Hill climbing started from the true DAG, over every pair, ends at a DAG that scores higher than ours on hepar2 ' +
      '(by 24), insurance (43) and barley (2,254), and at SHD 37, 8 and 29; on water it ends lower than ours (SHD 33), and on win95pts at the same score ' +
      '(SHD 11: three pairs of columns are exact copies of each other in this sample, so which of the two carries the edges is a tie the data cannot ' +
      'break). So part of the gap is the search and most of it is the score: a full table of parameters at 10k rows rejects parents that are real ' +
      '(water X9 -> X19: G = 555 on 72 degrees of freedom given its co-parents, priced at 432 more parameters). Tried and not kept: tree-structured ' +
      'CPTs (Friedman & Goldszmidt 1996; BIC per leaf, best-first splits, a size prior that grows with the parents) score the true DAG above the ' +
      'learned one on every network and gave water 34, hepar2 38, insurance 6 on these files, but on fresh samples of the same networks (1k, 5k, ' +
      '10k rows, two seeds each) barley went 266 -> 354 and insurance 99 -> 135 (sums of SHD) against 317 -> 259 on water; per-leaf NML and a ' +
      'quotient NML over the leaves overfit at 1k rows (hepar2 150). The order search on count scores, on the same fresh samples: insurance ' +
      '99 -> 93, water 317 -> 305, win95pts 245 -> 207, hepar2 375 -> 379, barley 266 -> 269.',
    '',
    'Exact copies (2026-11-29, discovery/copies.ts). In this win95pts sample three pairs of columns repeat each other one to one (X35 and X36, ' +
      'X64 and X68, X65 and X69). Such a pair is a deterministic relation: each column makes the other independent of everything, which the CI ' +
      'tests read as missing edges, and the two fit every graph equally well whichever carries the other edges. The search put X35\'s eight parents ' +
      'on X36 (SHD 32). Discovery now searches with the first column of each pair and joins the other to it by one edge that the class leaves ' +
      'undirected (the twin says `reversible`, lists the pair in `discovery.copies`, and answers that depend on which of the two acts are not ' +
      'identified): SHD 14. Which column carries the edges is still the data\'s tie, broken by column order, so part of that gain is the order ' +
      'of this file\'s columns. On fresh samples of the network (sampleBif, 1k, 5k and 10k rows, seeds 1 and 2) the sum of SHD went 176 -> 154 (at 1k rows 66 -> 72, at 5k and 10k 110 -> 82). No other ' +
      'network here has copies, and their rows are unchanged. Also seen: on hepar2 a difference in the last bit of the family score (two penalty ' +
      'terms subtracted together instead of one by one) moved the search to SHD 48: which of several moves of equal score it takes decides seven ' +
      'edges there.',
    '',
    'Families whose parents act only together (2026-11-29, score-search.ts `jointFamilies`). In andes a node is true with probability 0.1 ' +
      'unless all five of its binary parents are true (a noisy AND; six nodes are like it): one parent alone moves the child less than an edge ' +
      'costs among 223 variables, so the searches that add one edge at a time left 26 of those edges out, though the true families score 393 ' +
      'units higher in all. For each node the candidates near it now join its family at once and leave it one at a time (backward ' +
      'elimination); the best family met replaces the node\'s when it scores higher. andes SHD 37 -> 14 (10k rows, seed 7); on fresh samples ' +
      '(sampleBif) 33 -> 26 (10k rows, seed 1), 57 -> 46 (5k, seed 2), 72 -> 72 (2k, seed 3). Every other network here gave the same graphs ' +
      'as before, on these files and on fresh samples (1k, 5k and 10k rows, seeds 1 and 2). What is left on hepar2, water and barley is the ' +
      'score, not the search: the learned DAGs score above the true ones (hepar2 by 1,409 units). With missing values the families are ' +
      'compared on the complete rows alone where they are at least 90% of the rows (before: not at all, and one missing cell took andes ' +
      'from SHD 14 back to 37; now 14).',
    '', gSquareCost(dir, kernels), '',
  ].join('\n');
  if (process.env.BENCH_WRITE !== '0' && !only) writeSection(resolve(REPO_ROOT, 'BENCHMARKS.md'), SECTION, section);
}

/** What one G-square test costs the kernel on 10k rows (alarm, conditioning sets of one variable). */
function gSquareCost(dir: string, kernels: Kernels): string {
  const frame = readTable(`${dir}/bnlearn_discrete_10000/data/alarm.txt`, 'categorical');
  const { nRows: n, columns } = frame;
  const p = columns.length;
  const codes = new Int32Array(n * p);
  const levels = new Int32Array(p);
  columns.forEach((c, j) => {
    if (c.kind !== 'categorical') return;
    codes.set(c.codes, j * n);
    levels[j] = c.categories.length;
  });
  const count = 400;
  const tests = new Int32Array(count * 4);
  for (let t = 0; t < count; t++) tests.set([t % p, (t + 1 + (t % 5)) % p, 1, (t + 7 + (t % 3)) % p], t * 4);
  kernels.gSquareBatch(codes, n, levels, tests.subarray(0, 40), 1, 10);
  const started = performance.now();
  kernels.gSquareBatch(codes, n, levels, tests, 1, count);
  const micros = ((performance.now() - started) * 1000) / count;
  const line = `G-square kernel cost: ${micros.toFixed(0)} µs per test on 10k rows (alarm, one conditioning variable, batches of ${count}). The discrete rows spend most of their time in the PC skeleton's tests (column "of which PC skeleton"); the rest is the score searches.`;
  console.log(line);
  return line;
}

await main();
