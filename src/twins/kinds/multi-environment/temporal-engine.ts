/** The temporal panel kind's learning steps, run by the pool workers (src/compute/kind-engine.ts). */
import type { KindEngine } from '../../../compute/kind-engine.js';
import type { Kernels } from '../../../compute/kernels.js';
import { statisticsPlan } from '../../../engine/panel/fit.js';
import { discoverTemporalPanel, evaluateTemporalPanel, fitPooledTemporal, temporalShardStatistics } from '../../../engine/panel/temporal.js';
import { subsampleWindow, windowStart } from '../../../engine/temporal/confidence.js';
import type { TemporalDiscoveryOptions } from '../../../engine/temporal/discover.js';
import type { TemporalStructure } from '../../../engine/temporal/model.js';
import type { Frame, WorkHooks } from '../../../engine/types.js';

/** Every step takes the environments' seasonal phases (engine/panel/temporal.ts seasonalPhases), aligned with `series`. */
export default {
  /** J-PCMCI+ over every environment's series, the environment as a context. */
  discover: ({ series, options, phases }: { series: Frame[]; options: TemporalDiscoveryOptions; phases: number[] }, kernels: Kernels, hooks: WorkHooks) =>
    discoverTemporalPanel(series, options, kernels, hooks, phases),
  /** The same over one of `count` half-length windows of each series (edge confidence, temporal/confidence.ts). */
  window: ({ series, options, phases, index, count }: { series: Frame[]; options: TemporalDiscoveryOptions; phases: number[]; index: number; count: number }, kernels: Kernels) =>
    discoverTemporalPanel(series.map((s) => subsampleWindow(s, index, count)), options, kernels, {}, series.map((s, e) => phases[e]! + windowStart(s.nRows, index, count))),
  /** The pooled mechanisms over every environment's design rows. */
  pooled: ({ series, structure, phases }: { series: Frame[]; structure: TemporalStructure; phases: number[] }, kernels: Kernels) => fitPooledTemporal(series, structure, kernels, phases),
  /** Per-environment sufficient statistics of one shard of environments. */
  statistics: ({ series, environments, structure, plan, phases }: { series: Frame[]; environments: number[]; structure: TemporalStructure; plan: ReturnType<typeof statisticsPlan>; phases: number[] }) =>
    temporalShardStatistics(series, environments, structure, plan, phases),
  /** One step ahead on each environment's time-ordered tail. */
  evaluate: ({ series, keys, structure, testFraction, phases }: { series: Frame[]; keys: string[]; structure: TemporalStructure; testFraction: number; phases: number[] }, kernels: Kernels) =>
    evaluateTemporalPanel(series, keys, structure, testFraction, kernels, phases),
} satisfies KindEngine;
