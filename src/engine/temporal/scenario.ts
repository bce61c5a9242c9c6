/** The questions a temporal twin answers, as the engine receives them (schemas/simulations.ts mirrors them). */
import type { CounterfactualTarget, Metric, OptimisationScenario, Segment, ValueSpec } from '../inference/scenario.js';

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

/** Observed records of a window, in time order (optionally with their time: the twin's time column or `timestamp`). */
export type WindowRecord = Record<string, number | string | boolean | null>;

export interface TemporalRootCauseScenario {
  type: 'temporal_root_cause_analysis';
  targetVariable: string;
  samples: WindowRecord[];
  /** The record (index into samples) whose target value is diagnosed; default the last. */
  anomalyTimestep?: number;
  targetFpr?: number;
}

export interface TemporalAnomalyScenario {
  type: 'temporal_anomaly_detection';
  samples: WindowRecord[];
  targetFpr?: number;
  /** The records scanned (indices into samples, both included); default all. */
  startStep?: number;
  endStep?: number;
  /** Diagnose the K most anomalous flagged steps. */
  autoRcaTopK?: number;
}

export interface HealthMonitorScenario {
  type: 'causal_health_monitor';
  /** The recent observations to watch; default the last windowSteps steps of the data the version keeps. */
  samples?: WindowRecord[];
  windowSteps?: number;
  /** The chance that an unchanged link or variable raises an alert in one run. */
  targetFpr?: number;
  /** The shortest departure (in steps) scanned for, besides single-step spikes. */
  minSegmentSteps?: number;
  confidenceLevel?: number;
}

export interface TemporalExplanationScenario {
  type: 'temporal_explanation';
  explanationMode: 'discovery' | 'impact' | 'directional';
  effectVariable?: string;
  causeVariable?: string;
  segments?: Segment[];
  /** Lags reported (and the steps a held change runs before its total effect is read). */
  horizonSteps?: number;
  samples?: number;
}

/** When the levers of a temporal optimisation may change (the spec's interventionTiming, designed here). */
export interface InterventionTiming {
  /** The first step changes may apply (ms since the epoch, or the integer time value); default the first forecast step. */
  start?: number;
  /** `hold`: one value per lever from the start to the end of the horizon; `schedule`: a value per block of blockSteps steps. */
  mode?: 'hold' | 'schedule';
  blockSteps?: number;
}

export interface TemporalOptimisationScenario extends Pick<OptimisationScenario, 'objectives' | 'decisionVars' | 'variableConstraints' | 'metricConstraints' | 'interventionCountConfig'> {
  type: 'temporal_optimisation';
  forecastHorizon: number;
  interventionTiming?: InterventionTiming;
  originTimestamp?: number;
}

export interface TemporalCounterfactualScenario {
  type: 'temporal_counterfactual';
  /** The observed history; default the data the version keeps, up to historyUntil (default its end). */
  samples?: WindowRecord[];
  historyUntil?: number;
  /** What should have happened, and when (default the last step of the history). */
  targets: Array<CounterfactualTarget & { timestamp?: number }>;
  /** Changes fall at or before this time (default the step before the earliest target), within changeSteps steps of it. */
  changeBy?: number;
  changeSteps?: number;
  maxChanges?: number;
  constraints?: Record<string, { type: 'fixed' }>;
}
