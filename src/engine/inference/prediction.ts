/**
 * Prediction questions (spec "Scenario fields per family", "Outputs"): for each input row, each target given the
 * row's other provided values. Exact where the model allows -- Gaussian conditioning on a linear-Gaussian twin
 * (prediction-gaussian.ts), variable elimination on a discrete one (prediction-discrete.ts) -- and likelihood
 * weighting otherwise (prediction-weighting.ts). Records align positionally with the input rows.
 */
import { AppError } from '../../errors.js';
import { AbortError } from '../discovery/budget.js';
import { Rng } from '../random.js';
import type { CbnModel, Frame } from '../types.js';
import { type FamilyOutcome, type InferenceContext, type ResultRecord, rowResultsOf } from './outcome.js';
import { PredictionTally } from './prediction-summary.js';
import { gaussianJoint, isLinearGaussian, patternRegression } from './prediction-gaussian.js';
import { DiscreteNetwork, isDiscrete } from './prediction-discrete.js';
import { predictByWeighting } from './prediction-weighting.js';
import type { PredictionScenario } from './scenario.js';
import { type Scm, compileScm, frameFromRecords, frameFromTable } from './scm.js';
import { normalCritical } from './uncertainty.js';

/** Particles per row for likelihood weighting: many for a few rows, fewer (never below the floor) for a batch. */
const MAX_PARTICLES = 4000;
const MIN_PARTICLES = 200;
const PARTICLE_BUDGET = 4_000_000;

export async function runPrediction(model: CbnModel, scenario: PredictionScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const scm = compileScm(model);
  const invalid = (detail: string) => new AppError('validation_failed', detail);
  if (!Array.isArray(scenario.targetVars) || scenario.targetVars.length === 0) throw invalid('a prediction needs at least one target variable');
  const targets = [...new Set(scenario.targetVars.map((name) => {
    const i = scm.indexOf(name);
    if (i < 0) throw invalid(`target ${name} is not a variable of the model`);
    return i;
  }))];
  const confidenceLevel = scenario.confidenceLevel ?? 0.95;
  if (!(confidenceLevel > 0 && confidenceLevel < 1)) throw invalid('confidenceLevel must lie strictly between 0 and 1');
  const z = normalCritical(confidenceLevel);
  const frame = context.rows ?? (scenario.sampleTable === undefined ? frameFromRecords(scm, scenario.sample ?? []) : frameFromTable(scm, scenario.sampleTable));
  const patterns = groupByPattern(frame, targets);
  const out = new Map(targets.map((t) => [t, new Array<ResultRecord>(frame.nRows)]));
  const method = isLinearGaussian(model) ? 'gaussian_conditioning' : isDiscrete(model) ? 'variable_elimination' : 'likelihood_weighting';
  const particles = Math.max(MIN_PARTICLES, Math.min(MAX_PARTICLES, Math.floor(PARTICLE_BUDGET / Math.max(frame.nRows, 1))));
  const rng = new Rng(context.seed);
  const joint = method === 'gaussian_conditioning' ? gaussianJoint(model) : null;
  const network = method === 'variable_elimination' ? new DiscreteNetwork(model) : null;
  let done = 0;
  for (const { observed, rows } of patterns.values()) {
    if (context.hooks.aborted?.() === true) throw new AbortError();
    if (joint) predictGaussian(joint, frame, observed, rows, targets, z, confidenceLevel, out);
    else if (network) predictDiscrete(network, scm, frame, observed, rows, targets, confidenceLevel, out);
    else predictByWeighting({ scm, frame, rows, observed, targets, particles, z, confidenceLevel, rng, hooks: context.hooks }, out);
    done += rows.length;
    context.hooks.progress?.(done / Math.max(frame.nRows, 1), `predicted ${done} of ${frame.nRows} rows`);
  }
  const results: Record<string, ResultRecord[]> = {};
  for (const t of targets) results[scm.names[t]!] = out.get(t)!;
  const details: Record<string, unknown> = { method, rows: frame.nRows, patterns: patterns.size };
  if (method === 'likelihood_weighting') details.particlesPerRow = particles;
  const tally = new PredictionTally();
  tally.add(rowResultsOf(results, frame.nRows));
  return { results, details, summary: tally.summary(confidenceLevel, method) };
}

/**
 * Rows grouped by which non-target variables they provide. The pattern of a row is built 30 variables to a
 * number (one bit each), so a batch costs one small key per row rather than a string of every flag.
 */
function groupByPattern(frame: Frame, targets: number[]): Map<string, { observed: number[]; rows: number[] }> {
  const isTarget = new Uint8Array(frame.columns.length);
  for (const t of targets) isTarget[t] = 1;
  const inputs = frame.columns.flatMap((c, i) => (isTarget[i] === 0 ? [{ c, i }] : []));
  const words = Math.max(1, Math.ceil(inputs.length / 30));
  const groups = new Map<string, { observed: number[]; rows: number[] }>();
  const word = new Int32Array(words);
  for (let r = 0; r < frame.nRows; r++) {
    word.fill(0);
    for (let k = 0; k < inputs.length; k++) {
      const { c } = inputs[k]!;
      const w = (k / 30) | 0;
      if (c.kind === 'continuous' ? c.values[r] === c.values[r] : c.codes[r]! >= 0) word[w] = word[w]! | (1 << k % 30);
    }
    const key = words === 1 ? String(word[0]) : word.join(',');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { observed: inputs.filter((_, k) => (word[(k / 30) | 0]! & (1 << k % 30)) !== 0).map(({ i }) => i), rows: [] }));
    group.rows.push(r);
  }
  return groups;
}

function predictGaussian(
  joint: ReturnType<typeof gaussianJoint>, frame: Frame, observed: number[], rows: number[], targets: number[], z: number, confidenceLevel: number,
  out: Map<number, ResultRecord[]>,
): void {
  const law = patternRegression(joint, observed, targets);
  const o = observed.length;
  const x = observed.map((i) => {
    const c = frame.columns[i]!;
    if (c.kind !== 'continuous') throw new Error(`column ${c.name} is not continuous`);
    return c.values;
  });
  targets.forEach((t, ti) => {
    const records = out.get(t)!;
    const sd = law.std[ti]!;
    const offset = law.offset[ti]!;
    const r0 = ti * o;
    for (const row of rows) {
      let prediction = offset;
      for (let i = 0; i < o; i++) prediction += law.regression[r0 + i]! * x[i]![row]!;
      records[row] = { timestamp: null, prediction, std: sd, lowerBound: prediction - z * sd, upperBound: prediction + z * sd, confidenceLevel };
    }
  });
}

/** Exact class probabilities (bounds equal to them: no sampling error); rows with the same evidence share one query. */
function predictDiscrete(
  network: DiscreteNetwork, scm: Scm, frame: Frame, observed: number[], rows: number[], targets: number[], confidenceLevel: number,
  out: Map<number, ResultRecord[]>,
): void {
  const cache = new Map<string, Float64Array[]>();
  for (const row of rows) {
    const evidence = new Map(observed.map((i) => {
      const c = frame.columns[i]!;
      return [i, c.kind === 'categorical' ? c.codes[row]! : -1];
    }));
    const key = [...evidence.values()].join(',');
    let answers = cache.get(key);
    if (!answers) cache.set(key, (answers = targets.map((t) => network.posterior(t, evidence))));
    targets.forEach((t, ti) => {
      const node = scm.model.nodes[t]!;
      if (node.kind !== 'categorical') throw new Error(`node ${node.name} is not categorical`);
      const p = Array.from(answers[ti]!);
      const best = p.reduce((b, q, k) => (q > p[b]! ? k : b), 0);
      out.get(t)![row] = {
        timestamp: null, prediction: node.categories[best]!, std: null, probabilities: p, categories: [...node.categories],
        lowerBound: [...p], upperBound: [...p], confidenceLevel,
      };
    });
  }
}
