/** What every kind's learning shares: defaults, the row budget, and node records of a frame's columns. */
import type { TwinVersion } from '../../../schemas/twins.js';
import type { DiscoveryOptions, DiscoveryResult, EdgeRef, FrameColumn } from '../../engine/types.js';
import { edgesForTraining } from '../fixed-graph.js';
import type { LearnIo, LearnParams } from './kind.js';

export const LEARN_DEFAULTS = {
  alpha: 0.05,
  timeBudgetSeconds: 300,
  bootstrapSamples: 16,
  testFraction: 0.2,
  seed: 1,
  orientationAssumptions: ['non_gaussian_residuals'] as NonNullable<LearnParams['orientationAssumptions']>,
};

/**
 * Rows a twin learns from at most (the first ones in the data's order), and cells (rows x columns): the rows are
 * read into the server's memory before they become typed arrays. The version records how many it used.
 */
const MAX_TRAIN_ROWS = 200_000;
const MAX_TRAIN_CELLS = 10_000_000;

export const rowBudget = (columns: number) => Math.min(MAX_TRAIN_ROWS, Math.floor(MAX_TRAIN_CELLS / Math.max(1, columns)));

/** The version's `nodes` before training: observed variables with their kinds and categories. */
export function nodeRecords(columns: readonly FrameColumn[]): TwinVersion['nodes'] {
  return columns.map((column) => ({
    name: column.name,
    nodeType: 'observed',
    type: column.kind,
    categories: column.kind === 'categorical' ? column.categories : null,
    latentClusterId: null,
    environmentColumns: [],
    isDerived: false,
    symbolicEquation: null,
    derivedInfo: null,
    parentImpacts: null,
  }));
}

/** The discovery body's knobs with their defaults, and the options a frame over `names` is searched with. */
export function discoverySetup(params: LearnParams, version: TwinVersion, names: ReadonlySet<string>) {
  const inFrame = (e: EdgeRef) => names.has(e.source) && names.has(e.target);
  const alpha = params.alpha ?? LEARN_DEFAULTS.alpha;
  const timeBudgetSeconds = params.timeBudgetSeconds ?? LEARN_DEFAULTS.timeBudgetSeconds;
  const bootstrapSamples = params.bootstrapSamples ?? LEARN_DEFAULTS.bootstrapSamples;
  const seed = params.seed ?? LEARN_DEFAULTS.seed;
  const options: DiscoveryOptions = {
    alpha,
    timeBudgetMs: timeBudgetSeconds * 1000,
    required: version.fixedSubGraph.relationships.filter(inFrame),
    forbidden: version.fixedSubGraph.antiRelationships.filter(inFrame),
    seed,
    ...(params.maxDepth === undefined ? {} : { maxDepth: params.maxDepth }),
  };
  const summary = (stats: DiscoveryResult['stats'], started: number, nRows: number, extra: Partial<NonNullable<TwinVersion['discovery']>> = {}): NonNullable<TwinVersion['discovery']> => ({
    alpha,
    maxDepth: params.maxDepth ?? null,
    timeBudgetSeconds,
    bootstrapSamples,
    ...extra,
    testsRun: stats.tests,
    depthReached: stats.depthReached,
    timedOut: stats.timedOut,
    seconds: (Date.now() - started) / 1000,
    nRows,
  });
  return { alpha, bootstrapSamples, seed, options, summary };
}

/**
 * The main discovery and its bootstrap resamples on the pool at once, with the job's progress: the main search is
 * 70% of `share`, the resamples 30%.
 */
export async function withResamples<R, B>(
  io: LearnIo, share: number, label: string, count: number,
  main: (onProgress: (message: { fraction: number; state: string }) => void) => Promise<R>,
  resample: (i: number) => Promise<B>,
  resampleLabel = 'bootstrap resample',
): Promise<[R, B[]]> {
  let mainFraction = 0;
  let resamplesDone = 0;
  const report = (state: string) => io.context.progress(0.05 + share * (0.7 * mainFraction + (count === 0 ? 0.3 : (0.3 * resamplesDone) / count)), state);
  const first = main((message) => {
    mainFraction = message.fraction;
    report(`${label}: ${message.state}`);
  });
  const rest = Array.from({ length: count }, (_, i) =>
    resample(i).then((result) => {
      resamplesDone++;
      report(`${resampleLabel} ${resamplesDone} of ${count}`);
      return result;
    }),
  );
  const [result, ...boots] = await Promise.all([first, ...rest]);
  return [result as R, boots as B[]];
}

/** The version's graph within the frame's columns, with the fixed graph's pins and forbids applied: what training fits. */
export function trainingEdges(version: TwinVersion, names: ReadonlySet<string>): EdgeRef[] {
  const inFrame = (e: EdgeRef) => names.has(e.source) && names.has(e.target);
  return edgesForTraining(version.causalGraph.filter(inFrame), { relationships: version.fixedSubGraph.relationships.filter(inFrame), antiRelationships: version.fixedSubGraph.antiRelationships });
}
