/**
 * Scoring rows on panels: each row with the mechanisms of the environment it names (engine/panel/score.ts routes a
 * chunk's rows by their environment codes). A static panel's rows may name no environment (the pooled mechanisms
 * score them); a temporal panel's rows are each environment's steps in time order, scored after that environment's
 * own past, so they must name it.
 */
import type { FieldError } from '../../../errors.js';
import { rowEnvironmentRules } from '../../../families/shared/panel.js';
import { frameFromRecords } from '../../../engine/inference/scm.js';
import type { ScoredRecord } from '../../../engine/inference/score.js';
import type { PanelModel } from '../../../engine/panel/model.js';
import { namesEnvironment, panelRouting, recordEnvironments, recordsByEnvironment } from '../../../engine/panel/routing.js';
import { type TemporalPanelModel, environmentTemporalModel } from '../../../engine/panel/temporal.js';
import { timeKeys, windowProblem } from '../../../engine/temporal/window.js';
import type { CategoricalColumn, CbnModel, ContinuousColumn, Frame, FrameColumn } from '../../../engine/types.js';
import type { KindScoring } from '../kind.js';
import { pastAndSeasons, seriesOf, seriesRefusal, stepFrame } from '../temporal/scoring.js';

type Panel = { environmentColumns: string[]; environments: ReadonlyArray<{ key: string }> };

/** The rows' environment naming checked (every row names one or none; each names an environment of the version). */
const namingRules = (model: Panel, rows: readonly ScoredRecord[]): FieldError[] =>
  rowEnvironmentRules({ sample: rows }, { environmentColumns: model.environmentColumns, environments: panelRouting(model).keys })
    .map((e) => ({ ...e, location: e.location.replace(/^\/sample/, '') }));

export const panelScoring: KindScoring<PanelModel> = {
  byReference: () => null,
  scorer: (model) => ({ network: model.pooled, answering: model, environments: panelRouting(model), fixed: [] }),
  rowKeys: (model) => model.environmentColumns,
  rowRules: namingRules,
  inlineFrame: (model, rows) => {
    const frame = frameFromRecords({ model: model.pooled }, [...rows]);
    return { nRows: frame.nRows, columns: [...frame.columns, recordEnvironments(rows, model.environmentColumns, panelRouting(model).keys)] };
  },
};

/**
 * A temporal panel as the static panel its rows are scored by (the histories left behind), one per model: the same
 * object for every run of a version, so the workers keep it (compute/shared-models.ts) instead of reading it anew.
 */
const staticPanels = new WeakMap<TemporalPanelModel, PanelModel>();
function staticPanelOf(model: TemporalPanelModel): PanelModel {
  let panel = staticPanels.get(model);
  if (panel === undefined) {
    panel = { kind: 'panel', environmentColumns: model.environmentColumns, pooled: model.pooled, environments: model.environments.map(({ history: _history, ...environment }) => environment) };
    staticPanels.set(model, panel);
  }
  return panel;
}

export const temporalPanelScoring: KindScoring<TemporalPanelModel> = {
  byReference: seriesRefusal,
  // The network over the lagged design as a static panel (the histories stay behind: the frames carry the past); by
  // reference, each environment's rows in time order, each chunk with the maxLag rows before it.
  scorer: (model) => ({
    network: model.pooled,
    answering: staticPanelOf(model),
    environments: panelRouting(model),
    // A row naming no environment of the twin has no past to follow.
    unknownEnvironments: 'unscorable',
    fixed: pastAndSeasons(model, model.pooled),
    ...seriesOf(model),
  }),
  rowKeys: (model) => [...model.environmentColumns, ...timeKeys(model.timeColumn)],
  rowRules: (model, rows) => {
    const named = namingRules(model, rows);
    if (named.length > 0) return named;
    if (rows.length > 0 && !namesEnvironment(rows[0]!, model.environmentColumns)) {
      return [{ location: '/0', message: `each row names its environment (${model.environmentColumns.join(', ')}): a temporal panel scores an environment's rows after its own past` }];
    }
    for (const [key, indices] of recordsByEnvironment(rows, model.environmentColumns)) {
      const problem = windowProblem(environmentTemporalModel(model, key), indices.map((i) => rows[i]!));
      // The problem's first segment is an index among this environment's rows: located at the row given.
      if (problem !== null) return [{ location: problem.location.replace(/^\/(\d+)/, (_, i: string) => `/${indices[Number(i)]!}`), message: `${key}: ${problem.message}` }];
    }
    return [];
  },
  // Rows naming no environment of the twin (read by reference) have no past to follow: left missing, and the
  // scorer answers them unscorable.
  inlineFrame: (model, rows) => {
    const known = new Set(panelRouting(model).keys);
    const parts = [...recordsByEnvironment(rows, model.environmentColumns)].filter(([key]) => known.has(key)).map(([key, indices]) => ({ indices, frame: stepFrame(environmentTemporalModel(model, key), indices.map((i) => rows[i]!)) }));
    return { nRows: rows.length, columns: [...scattered(model.pooled, rows.length, parts), recordEnvironments(rows, model.environmentColumns, panelRouting(model).keys)] };
  },
};

/** Frames over the network, each for some of the rows, as one frame in the rows' order (rows in none: missing). */
function scattered(network: CbnModel, n: number, parts: ReadonlyArray<{ indices: number[]; frame: Frame }>): FrameColumn[] {
  return network.nodes.map((node, j): FrameColumn => {
    if (node.kind === 'continuous') {
      const values = new Float64Array(n).fill(Number.NaN);
      for (const { indices, frame } of parts) {
        const own = frame.columns[j] as ContinuousColumn;
        indices.forEach((row, k) => (values[row] = own.values[k]!));
      }
      return { name: node.name, kind: 'continuous', values };
    }
    const codes = new Int32Array(n).fill(-1);
    for (const { indices, frame } of parts) {
      const own = frame.columns[j] as CategoricalColumn;
      indices.forEach((row, k) => (codes[row] = own.codes[k]!));
    }
    return { name: node.name, kind: 'categorical', codes, categories: [...node.categories] };
  });
}
