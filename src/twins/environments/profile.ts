/**
 * A multi-environment version's environments as learning read them: one entry per environment key (a combination
 * of the twin's environment column values) with its rows, time span and per-variable statistics, and, once
 * discovered, each edge's evidence per environment (graph slices and agreement rates read it). Kept in the
 * version's stored record (not presented with the version: it can be large); `environmentProfile` reads it.
 */
import type { VersionRow } from '../repo.js';

export interface VariableStats {
  /** Numeric variables: over the environment's rows with a value; null for categorical variables. */
  mean: number | null;
  std: number | null;
  min: number | null;
  max: number | null;
  /** Rows without a value. */
  missing: number;
}

export interface EnvironmentEntry {
  /** environmentKey(columns, values) */
  key: string;
  /** Column -> value (as text) of each environment column. */
  values: Record<string, string>;
  nRows: number;
  /** Temporal panels: the first and last timestamp (ISO or the integer index as text) and the steps between. */
  timeSpan: { start: string; end: string; steps: number } | null;
  stats: Record<string, VariableStats>;
  /** Whether the environment has rows enough to judge its edges (a slice counts only these). */
  hasEvidence: boolean;
}

/** One edge's evidence per environment (aligned with `environments`): holds there (null: not judged) and its strength. */
export interface EdgeEvidence {
  source: string;
  target: string;
  holds: Array<boolean | null>;
  strength: Array<number | null>;
}

export interface EnvironmentProfile {
  columns: string[];
  environments: EnvironmentEntry[];
  /** Rows left out because an environment column had no value. */
  rowsWithoutEnvironment: number;
  /** Set by discovery. */
  edges: EdgeEvidence[];
}

/** The profile kept on a version's record, or null when the version has not read its data as a panel. */
export function environmentProfile(row: VersionRow): EnvironmentProfile | null {
  const record = JSON.parse(row.record) as { environmentProfile?: EnvironmentProfile };
  return record.environmentProfile ?? null;
}

