/**
 * A batch's rows on a static panel, routed to the environment each names: the frame carries the environment as
 * ROW_ENVIRONMENT codes (read by reference, or built from records that name it), and each group of rows is answered
 * by that environment's network; a row naming no environment of the twin (code -1, or no such column) by the pooled
 * network.
 */
import type { CategoricalColumn, CbnModel, Frame, FrameColumn } from '../types.js';
import { ROW_ENVIRONMENT, rowEnvironment } from './keys.js';
import { environmentModel, type PanelModel } from './model.js';

/** A panel's environment columns and keys: how a batch's rows name their environment (as codes into `keys`). */
export interface PanelRouting {
  columns: string[];
  keys: string[];
}

/** The routing of a panel's rows. */
export const panelRouting = (panel: { environmentColumns: string[]; environments: ReadonlyArray<{ key: string }> }): PanelRouting => ({ columns: panel.environmentColumns, keys: panel.environments.map((e) => e.key) });

export interface RoutedRows {
  /** The frame without its environment column: the model's variables in model order. */
  variables: Frame;
  /** Row indices per environment code (an index into the panel's environments; -1: the pooled network). */
  groups: Map<number, number[]>;
}

export function routeRows(panel: PanelModel, frame: Frame): RoutedRows {
  const environment = frame.columns.find((c): c is CategoricalColumn => c.name === ROW_ENVIRONMENT && c.kind === 'categorical');
  const variables: Frame = { nRows: frame.nRows, columns: frame.columns.filter((c) => c.name !== ROW_ENVIRONMENT) };
  const groups = new Map<number, number[]>();
  for (let r = 0; r < frame.nRows; r++) {
    const code = environment?.codes[r] ?? -1;
    const key = code >= 0 && code < panel.environments.length ? code : -1;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [r]);
    else group.push(r);
  }
  return { variables, groups };
}

/** The network that answers a group of routed rows. */
export const routedNetwork = (panel: PanelModel, code: number): CbnModel => (code < 0 ? panel.pooled : environmentModel(panel, panel.environments[code]!.key));

/** A description of a routed group for people: its environment key, or that the pooled mechanisms answered it. */
export const routedLabel = (panel: PanelModel, code: number): string => (code < 0 ? 'no environment of the twin' : panel.environments[code]!.key);

/** Whether a record names an environment: a value in every environment column. */
export const namesEnvironment = (record: Readonly<Record<string, unknown>>, columns: readonly string[]): boolean =>
  columns.every((column) => record[column] !== undefined && record[column] !== null);

/** Record indices by the environment key each names, in the records' order. */
export function recordsByEnvironment(records: ReadonlyArray<Readonly<Record<string, unknown>>>, columns: readonly string[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  records.forEach((record, i) => {
    const key = rowEnvironment(record, columns);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [i]);
    else group.push(i);
  });
  return groups;
}

/**
 * The ROW_ENVIRONMENT column of records that may name their environment in the panel's environment columns: the
 * code of the key they name among `keys`, -1 for a record naming none of them.
 */
export function recordEnvironments(records: ReadonlyArray<Readonly<Record<string, unknown>>>, columns: readonly string[], keys: readonly string[]): FrameColumn {
  const index = new Map(keys.map((key, i) => [key, i]));
  const codes = new Int32Array(records.length);
  records.forEach((record, r) => {
    codes[r] = namesEnvironment(record, columns) ? index.get(rowEnvironment(record, columns)) ?? -1 : -1;
  });
  return { name: ROW_ENVIRONMENT, kind: 'categorical', codes, categories: [...keys] };
}
