/** The temporal panel kind's learning steps, run by the pool workers (src/compute/kind-engine.ts). */
import type { KindEngine } from '../../../compute/kind-engine.js';
import type { Kernels } from '../../../compute/kernels.js';
import { statisticsPlan } from '../../../engine/panel/fit.js';
import { discoverTemporalPanel, evaluateTemporalPanel, fitPooledTemporal, temporalShardStatistics } from '../../../engine/panel/temporal.js';
import { subsampleWindow } from '../../../engine/temporal/confidence.js';
import type { TemporalDiscoveryOptions } from '../../../engine/temporal/discover.js';
import type { TemporalStructure } from '../../../engine/temporal/model.js';
import type { Frame, WorkHooks } from '../../../engine/types.js';

export default {
  /** J-PCMCI+ over every environment's series, the environment as a context. */
  discover: ({ series, options }: { series: Frame[]; options: TemporalDiscoveryOptions }, kernels: Kernels, hooks: WorkHooks) => discoverTemporalPanel(series, options, kernels, hooks),
  /** The same over one of `count` half-length windows of each series (edge confidence, temporal/confidence.ts). */
  window: ({ series, options, index, count }: { series: Frame[]; options: TemporalDiscoveryOptions; index: number; count: number }, kernels: Kernels) =>
    discoverTemporalPanel(series.map((s) => subsampleWindow(s, index, count)), options, kernels),
  /** The pooled mechanisms over every environment's design rows. */
  pooled: ({ series, structure }: { series: Frame[]; structure: TemporalStructure }, kernels: Kernels) => fitPooledTemporal(series, structure, kernels),
  /** Per-environment sufficient statistics of one shard of environments. */
  statistics: ({ series, environments, structure, plan }: { series: Frame[]; environments: number[]; structure: TemporalStructure; plan: ReturnType<typeof statisticsPlan> }) =>
    temporalShardStatistics(series, environments, structure, plan),
  /** One step ahead on each environment's time-ordered tail. */
  evaluate: ({ series, keys, structure, testFraction }: { series: Frame[]; keys: string[]; structure: TemporalStructure; testFraction: number }, kernels: Kernels) =>
    evaluateTemporalPanel(series, keys, structure, testFraction, kernels),
} satisfies KindEngine;
