/** The multi-environment kinds' learning steps, run by the pool workers (src/compute/kind-engine.ts). */
import type { KindEngine } from '../../../compute/kind-engine.js';
import type { Kernels } from '../../../compute/kernels.js';
import { evaluateCbn, splitHoldout } from '../../../engine/cbn/evaluate.js';
import { fitCbn } from '../../../engine/cbn/fit.js';
import { resampleFrame } from '../../../engine/discovery/bootstrap.js';
import { cpdagOf, discoverPanel } from '../../../engine/panel/discover.js';
import { evaluatePanel, randomSplit, shardStatistics, type statisticsPlan } from '../../../engine/panel/fit.js';
import type { DiscoveryOptions, EdgeRef, Frame, WorkHooks } from '../../../engine/types.js';

export default {
  /** The pooled graph by CD-NOD; `frame`'s last column is the environment indicator. */
  discover: ({ frame, indicator, options }: { frame: Frame; indicator: string; options: DiscoveryOptions }, kernels: Kernels, hooks: WorkHooks) =>
    discoverPanel(frame, indicator, options, kernels, hooks),
  /** One half-sample of the rows (indicator included) rediscovered, for edge confidence. */
  bootstrap: ({ frame, indicator, options, seed }: { frame: Frame; indicator: string; options: DiscoveryOptions; seed: number }, kernels: Kernels) =>
    cpdagOf(discoverPanel(resampleFrame(frame, seed), indicator, { ...options, seed }, kernels)),
  /** Per-environment sufficient statistics of one shard of environments. */
  statistics: ({ frame, environment, environments, plan }: { frame: Frame; environment: Int32Array; environments: number[]; plan: ReturnType<typeof statisticsPlan> }) =>
    shardStatistics(frame, environment, environments, plan),
  /** The pooled network on every row, and its evaluation on a held-out split. */
  pooled: ({ frame, edges, testFraction, seed }: { frame: Frame; edges: EdgeRef[]; testFraction: number; seed: number }, kernels: Kernels) => {
    const { train, test } = splitHoldout(frame, testFraction, seed);
    return { model: fitCbn(frame, edges, {}, kernels), evaluation: evaluateCbn(fitCbn(train, edges, {}, kernels), test) };
  },
  /** Per-environment held-out evaluation of the partially pooled mechanisms (engine/panel/fit.ts). */
  evaluate: ({ frame, environment, keys, edges, testFraction, seed }: { frame: Frame; environment: Int32Array; keys: string[]; edges: EdgeRef[]; testFraction: number; seed: number }, kernels: Kernels) =>
    evaluatePanel(frame, environment, keys, edges, randomSplit(environment, keys.length, testFraction, seed), testFraction, kernels),
} satisfies KindEngine;
