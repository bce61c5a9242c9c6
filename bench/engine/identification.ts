/**
 * Identification against ANCHORS.md ("Identification"): on random linear-Gaussian ER graphs (simulate.ts
 * randomModel, expected degree 2) learned from data by the static discovery, every ordered pair (X, Y) with X != Y
 * is asked the effect of a +1 shift of X on Y through runIntervention with the learned class. Reported: the share
 * of pairs whose effect the learned class identifies; of the identified pairs with a true effect, how often the
 * answer's interval covers the truth; of the unidentified ones, how often the true effect is among the reported
 * possible effects (inside one's interval, or within 10% of it). The baseline in the same run is the answer of the
 * chosen DAG alone (what a twin stated before identification): how often it misses the truth by more than 10%.
 *
 * Run: `make bench-inference` (after the inference bench) or `node dist/bench/engine/identification.js`.
 * Env: BENCH_WRITE=0 (do not touch BENCHMARKS.md), BENCH_ID_SEEDS (graphs per size, default 8).
 */
import { resolve } from 'node:path';
import { loadWasmKernels } from '../../src/compute/wasm.js';
import { fitCbn } from '../../src/engine/cbn/fit.js';
import { discoverStatic } from '../../src/engine/discovery/discover-static.js';
import { dagToCpdag, structuralHammingDistance } from '../../src/engine/graph/index.js';
import { edgeOrientations } from '../../src/engine/identification/class.js';
import type { IdentifiedMembers } from '../../src/engine/inference/identified-effects.js';
import type { VariableEffect } from '../../src/engine/inference/intervention-effects.js';
import { runIntervention } from '../../src/engine/inference/intervention.js';
import { modelEdges, randomModel, sampleModel, totalEffects } from '../../src/engine/simulate.js';
import { machineLine, writeSection } from '../lib/report.js';
import { REPO_ROOT } from './benchmark-data.js';

const SECTION = '## Identification (bench/engine/identification.ts)';
const ROWS = 5000;
const SEEDS = Number(process.env.BENCH_ID_SEEDS ?? 8);
const CLOSE = 0.1;
/** Graph sizes and how many graphs of each (the largest is there for the cost of identification on wider classes). */
const SIZES: [number, number][] = [[10, SEEDS], [20, SEEDS], [50, Math.max(1, Math.ceil(SEEDS / 3))]];


const near = (value: number, truth: number, low: number, high: number) => (low <= truth && truth <= high) || Math.abs(value - truth) <= CLOSE * Math.max(Math.abs(truth), 0.1);

async function main(): Promise<void> {
  const kernels = loadWasmKernels();
  const rows: string[] = [];
  let reversibleShare = 0;
  for (const [p, graphs] of SIZES) {
    const shds: number[] = [];
    const exact = { withEffect: 0, covered: 0 };
    const tally = { pairs: 0, identified: 0, identifiedWithEffect: 0, identifiedCovered: 0, open: 0, openAmong: 0, chosenMissed: 0, openChosenMissed: 0, reversible: 0, edges: 0, seconds: 0, plainSeconds: 0 };
    for (let seed = 1; seed <= graphs; seed++) {
      const truth = randomModel(p, 2, 7000 + seed);
      const frame = sampleModel(truth, ROWS, 9000 + seed);
      const discovered = discoverStatic(frame, {}, kernels);
      const names = frame.columns.map((c) => c.name);
      const shd = structuralHammingDistance(discovered.cpdag, dagToCpdag(names, modelEdges(truth)));
      shds.push(shd);
      const orientations = edgeOrientations(names, discovered.edges, { required: [], forbidden: [] });
      tally.reversible += orientations.filter((o) => o === 'reversible').length;
      tally.edges += orientations.length;
      const reversible = discovered.edges.filter((_, i) => orientations[i] === 'reversible');
      const model = fitCbn(frame, discovered.edges, {}, kernels);
      for (let x = 0; x < p; x++) {
        const truthEffects = totalEffects(truth, x);
        const scenario = {
          type: 'intervention' as const, interventions: [{ variable: truth.nodes[x]!.name, valueSpec: { type: 'relative_change' as const, mode: 'absolute' as const, value: 1 } }],
          targetVars: truth.nodes.map((n) => n.name).filter((_, y) => y !== x),
        };
        const plain = { seed, hooks: {}, evaluateMetric: () => Promise.reject(new Error('no metrics')) };
        let started = performance.now();
        await runIntervention(model, scenario, plain);
        tally.plainSeconds += (performance.now() - started) / 1000;
        started = performance.now();
        const outcome = await runIntervention(model, scenario, { ...plain, identification: { reversible, trainingRows: ROWS, kernels } });
        tally.seconds += (performance.now() - started) / 1000;
        for (const v of outcome.details.variables as (VariableEffect & IdentifiedMembers)[]) {
          const y = truth.nodes.findIndex((n) => n.name === v.variable);
          const t = truthEffects[y]!;
          const d = v.effect.difference as number;
          tally.pairs++;
          const missed = !near(d, t, v.effect.lowerBound as number, v.effect.upperBound as number);
          if (missed) tally.chosenMissed++;
          if (v.identified) {
            tally.identified++;
            if (t !== 0) {
              tally.identifiedWithEffect++;
              const covered = (v.effect.lowerBound as number) <= t && t <= (v.effect.upperBound as number);
              if (covered) tally.identifiedCovered++;
              if (shd === 0) {
                exact.withEffect++;
                if (covered) exact.covered++;
              }
            }
          } else {
            tally.open++;
            if (missed) tally.openChosenMissed++;
            if (v.possibleDifferences!.some((pd) => near(pd.difference as number, t, pd.lowerBound as number, pd.upperBound as number))) tally.openAmong++;
          }
        }
      }
    }
    reversibleShare = tally.reversible / Math.max(1, tally.edges);
    const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)}%`);
    rows.push(`| ER2, ${p} vars x ${ROWS} rows, ${graphs} graphs | ${shds.join(', ')} | ${tally.pairs} | ${pct(tally.reversible, tally.edges)} | ${pct(tally.identified, tally.pairs)} | ${pct(tally.identifiedCovered, tally.identifiedWithEffect)} (${pct(exact.covered, exact.withEffect)}) | ${tally.open} | ${pct(tally.openAmong, tally.open)} | ${pct(tally.openChosenMissed, tally.open)} | ${pct(tally.chosenMissed, tally.pairs)} | ${(tally.seconds / (graphs * p) * 1000).toFixed(0)} ms (${(tally.plainSeconds / (graphs * p) * 1000).toFixed(0)} ms) |`);
    console.log(rows.at(-1));
  }
  const section = `${SECTION}

${machineLine()}. Random linear-Gaussian ER graphs (expected degree 2), ${ROWS} rows each, learned by the static
discovery; every ordered pair (X, Y) asked the effect of a +1 shift of X through runIntervention with the learned
class (IDA over the class: Maathuis et al. 2009). "Among" = the true effect lies inside a reported possible
effect's interval or within 10% of it. The same-run baseline is the chosen DAG's answer alone (what a twin stated
before identification). Goal (ANCHORS.md): the truth among the possible effects in >= 95% of unidentified pairs.
Where the learned class itself is wrong (SHD > 0), identified answers inherit the structure error: the coverage on
graphs learned exactly is shown in brackets.

| graphs | learned CPDAG SHD per graph | pairs | reversible edges | pairs identified | identified: truth in 95% interval (on graphs learned with SHD 0) | unidentified pairs | unidentified: truth among possible effects | unidentified: chosen DAG's answer alone misses | all pairs: chosen DAG's answer misses | time per question (without identification, same run) |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
  if (process.env.BENCH_WRITE !== '0') writeSection(resolve(REPO_ROOT, 'BENCHMARKS.md'), SECTION, section);
  console.log(section, `(reversible share of the last size ${reversibleShare.toFixed(3)})`);
}

await main();
