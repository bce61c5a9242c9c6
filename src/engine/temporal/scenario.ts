/** The questions a temporal twin answers, as the engine receives them (schemas/simulations.ts mirrors them). */
import type { Metric, ValueSpec } from '../inference/scenario.js';

export interface ForecastScenario {
  type: 'forecast';
  forecastH: number;
  targetVars?: string[];
  confidenceLevel?: number;
  originTimestamp?: number;
  samples?: number;
}

export interface TemporalIntervention {
  variable: string;
  /** A `range` (at most one per scenario, numeric variable) sweeps the variable over its grid. */
  valueSpec: ValueSpec;
  timestamp?: number;
  persistent?: boolean;
  durationSteps?: number;
}

export interface TemporalInterventionScenario {
  type: 'temporal_intervention';
  interventions: TemporalIntervention[];
  forecastH?: number;
  targetVars?: string[];
  metrics?: Metric[];
  confidenceLevel?: number;
  originTimestamp?: number;
  samples?: number;
}
