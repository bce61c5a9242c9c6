/** The temporal kind's learning steps, run by the pool workers (src/compute/kind-engine.ts). */
import type { KindEngine } from '../../../compute/kind-engine.js';
import type { Kernels } from '../../../compute/kernels.js';
import { type TemporalDiscoveryOptions, discoverTemporal } from '../../../engine/temporal/discover.js';
import { evaluateTemporal } from '../../../engine/temporal/evaluate.js';
import { type TemporalModel, type TemporalStructure, fitTemporal } from '../../../engine/temporal/model.js';
import type { Timeline } from '../../../engine/temporal/timeline.js';
import type { Evaluation, Frame, WorkHooks } from '../../../engine/types.js';

interface FitInput {
  series: Frame;
  stepTimes: number[];
  timeline: Timeline;
  structure: TemporalStructure;
  options: { testFraction: number; seed: number };
}

export default {
  /** PCMCI+-class discovery over a regular series. */
  discover: ({ series, options }: { series: Frame; options: TemporalDiscoveryOptions }, kernels: Kernels, hooks: WorkHooks) => discoverTemporal(series, options, kernels, hooks),
  /** The lagged model on the whole series, and its evaluation on the time-ordered tail. */
  fit: ({ series, stepTimes, timeline, structure, options }: FitInput, kernels: Kernels): { model: TemporalModel; evaluation: Evaluation } => ({
    model: fitTemporal(series, stepTimes, timeline, structure, { seed: options.seed }, kernels),
    evaluation: evaluateTemporal(series, stepTimes, timeline, structure, options, kernels),
  }),
} satisfies KindEngine;
