/** The static kind's learning steps, run by the pool workers (src/compute/kind-engine.ts). */
import type { KindEngine } from '../../../compute/kind-engine.js';
import type { Kernels } from '../../../compute/kernels.js';
import { evaluateCbn, splitHoldout } from '../../../engine/cbn/evaluate.js';
import { fitCbn } from '../../../engine/cbn/fit.js';
import { resampleFrame } from '../../../engine/discovery/bootstrap.js';
import { discoverStatic } from '../../../engine/discovery/discover-static.js';
import { withAssumedOrientations } from '../../../engine/identification/assume.js';
import type { CbnModel, DiscoveryOptions, EdgeRef, Evaluation, FitOptions, Frame, WorkHooks } from '../../../engine/types.js';

export interface FitOutcome {
  /** Fitted on every row: the model versions keep. */
  model: CbnModel;
  /** Of a model fitted on the training split, on the held-out rows. */
  evaluation: Evaluation;
  nTrain: number;
  nTest: number;
}

export default {
  /** The graph, with the orientations the allowed assumptions decide. */
  discover: ({ frame, options }: { frame: Frame; options: DiscoveryOptions }, kernels: Kernels, hooks: WorkHooks) =>
    withAssumedOrientations(frame, discoverStatic(frame, options, kernels, hooks), options, kernels),
  /** One half-sample of the rows rediscovered, for edge confidence. */
  bootstrap: ({ frame, options, seed }: { frame: Frame; options: DiscoveryOptions; seed: number }, kernels: Kernels) =>
    discoverStatic(resampleFrame(frame, seed), { ...options, seed }, kernels),
  fit: ({ frame, edges, options }: { frame: Frame; edges: EdgeRef[]; options: FitOptions & { testFraction: number } }, kernels: Kernels): FitOutcome => {
    const { train, test } = splitHoldout(frame, options.testFraction, options.seed ?? 1);
    const evaluation = evaluateCbn(fitCbn(train, edges, options, kernels), test);
    return { model: fitCbn(frame, edges, options, kernels), evaluation, nTrain: train.nRows, nTest: test.nRows };
  },
} satisfies KindEngine;
