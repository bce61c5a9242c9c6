/** What every kind's learning shares: defaults, the row budget, and node records of a frame's columns. */
import type { TwinVersion } from '../../../schemas/twins.js';
import type { FrameColumn } from '../../engine/types.js';
import type { LearnParams } from './kind.js';

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
