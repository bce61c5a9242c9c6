/**
 * Batch scoring: each row's targets predicted from the row's other values by the targets' own equations
 * (conditional mean, most likely class), judged against the wanted values; the drivers of each prediction
 * (score-drivers.ts); and for a row that misses, the fewest changes that would meet the targets (search.ts,
 * re-simulated with the row's abducted noise). Missing inputs are completed by their own equations from their
 * parents; a row is `unscorable` when a target needs a value the row lacks and cannot be inferred: a missing
 * variable with no parents (a root), or one whose parents cannot be inferred either.
 */
import { AbortError } from '../discovery/budget.js';
import { selectRows } from '../frame.js';
import type { PanelModel } from '../panel/model.js';
import type { PanelRouting } from '../panel/routing.js';
import type { CbnModel, Frame } from '../types.js';
import { type InferenceContext, type ScoredColumns, type ScoredRow, VERDICTS } from './outcome.js';
import type { ScoreQuestion } from './scenario.js';
import { compileScm, type Scm } from './scm.js';
import { describeRow, SUMMARISED_ROWS } from './score-digest.js';
import { DriverAttribution } from './score-drivers.js';
import { planChangeSearch, searchUnits, type UnitAnswer } from './search.js';
import { type ResolvedTarget, resolveTargets, targetMet } from './target-match.js';
import { abductNeutral, completeNeutral, predictNode, targetPredictions, UnitProbe } from './unit-probe.js';

/** A row given inline to a scoring request: values keyed by variable, and what else the kind reads (its time, its environment). */
export type ScoredRecord = Record<string, number | string | boolean | null>;

/** What rows are read as: variables by name, numbers as they are and categories as their code in the list. */
export interface RowShape {
  nodes: ReadonlyArray<{ name: string; kind: 'continuous' } | { name: string; kind: 'categorical'; categories: readonly string[] }>;
}

/**
 * What scores a kind's rows: the network they are read as (their columns, its nodes), what answers them on the pool
 * (the network itself, or a static panel that routes each row to its environment's network by the rows'
 * environment codes: `environments`), and the nodes no proposed change may touch (a temporal twin's past steps and
 * seasonal terms).
 */
/** What a panel's rows naming no environment of the twin get: the pooled network's answer, or the verdict unscorable. */
export type UnknownEnvironmentRows = 'pooled' | 'unscorable';

export interface Scorer {
  network: CbnModel;
  answering: CbnModel | PanelModel;
  environments?: PanelRouting;
  /** On a panel, what a row naming no environment of the twin gets: the pooled mechanisms (default), or `unscorable`. */
  unknownEnvironments?: UnknownEnvironmentRows;
  fixed: string[];
  /**
   * Rows that are steps of a series (a temporal twin's): read by reference in time order as records of `variables`
   * with their time under `timeColumn`, each chunk with the `lookBack` rows before it (the past its first rows' lags
   * reach), made a frame over the network as inline rows are.
   */
  series?: { timeColumn: string; lookBack: number; variables: RowShape };
}

/** Drivers listed per row (the largest by absolute contribution). */
const DRIVERS_PER_ROW = 5;
/** Verdict codes: indices into VERDICTS (outcome.ts). */
const MEETS = 0;
const MISSES = 1;
const UNSCORABLE = 2;

/** Scores the rows (a frame over the model's variables, in model order) and answers them as columns. */
export async function runScore(model: CbnModel, question: ScoreQuestion, observed: Frame, context: InferenceContext): Promise<ScoredColumns> {
  const scm = compileScm(model);
  const targets = resolveTargets(scm, question.targets);
  const plan = planChangeSearch(scm, targets, { maxChanges: question.maxChanges, constraints: question.constraints });
  const n = observed.nRows;
  const imputed = missingMasks(observed);
  const inferable = inferableMasks(scm, imputed);
  const scorable = new Uint8Array(n).fill(1);
  for (const t of targets) {
    for (const p of scm.parentsOf(t.index)) {
      const mask = inferable[p]!;
      for (let r = 0; r < n; r++) scorable[r]! &= mask[r]!;
    }
  }
  const { frame: completed } = completeNeutral(scm, observed);
  const predictions = targets.map((t) => predictNode(scm, t.index, completed));
  context.hooks.progress?.(0.2, 'predicted');
  const verdicts = new Uint8Array(n);
  for (let r = 0; r < n; r++) {
    let met = true;
    for (let j = 0; j < targets.length && met; j++) met = targetMet(targets[j]!, predictions[j]![r]!);
    verdicts[r] = scorable[r] === 0 ? UNSCORABLE : met ? MEETS : MISSES;
  }
  for (const values of predictions) for (let r = 0; r < n; r++) if (verdicts[r] === UNSCORABLE) values[r] = Number.NaN;
  const drivers = rowDrivers(scm, targets, completed, imputed, verdicts);
  context.hooks.progress?.(0.4, 'drivers');
  const answers = await searchMisses(scm, plan, observed, verdicts, targets, context);
  const scored: ScoredColumns = { nRows: n, verdicts, predictions, ...drivers, ...changeColumns(observed, answers, n), summaries: [] };
  const names = question.targets.map((t) => t.variable);
  for (let r = 0; r < Math.min(n, SUMMARISED_ROWS); r++) {
    const row = scoredRow(model, names, scored, r);
    scored.summaries.push(describeRow(targets, row, row.verdict === 'unscorable' ? missingRoots(scm, targets, inferable, imputed, r) : []));
  }
  context.hooks.progress?.(1, 'done');
  return scored;
}

/** Rows judged unscorable without a look (`summary` says why): no prediction, driver or change. */
export function unscorableColumns(n: number, targets: number, variables: number, summary: string): ScoredColumns {
  return {
    nRows: n,
    verdicts: new Uint8Array(n).fill(UNSCORABLE),
    predictions: Array.from({ length: targets }, () => new Float64Array(n).fill(Number.NaN)),
    driversPerRow: DRIVERS_PER_ROW,
    driverNodes: new Int32Array(n * DRIVERS_PER_ROW).fill(-1),
    driverContributions: new Float64Array(n * DRIVERS_PER_ROW),
    changeStart: new Int32Array(n + 1),
    changeNodes: new Int32Array(0),
    changeFrom: new Float64Array(0),
    changeTo: new Float64Array(0),
    reachable: new Int8Array(n).fill(-1),
    driverSums: new Float64Array(variables),
    topCounts: new Int32Array(variables),
    summaries: Array.from({ length: Math.min(n, SUMMARISED_ROWS) }, () => summary),
  };
}

/** Row r of scored columns as a reader sees it (variables by name, classes by label). */
export function scoredRow(model: CbnModel, targets: readonly string[], scored: ScoredColumns, r: number): ScoredRow {
  const predictions: ScoredRow['predictions'] = {};
  targets.forEach((name, j) => (predictions[name] = cell(model, model.nodes.findIndex((node) => node.name === name), scored.predictions[j]![r]!)));
  const drivers: ScoredRow['drivers'] = [];
  for (let k = r * scored.driversPerRow; k < (r + 1) * scored.driversPerRow && scored.driverNodes[k]! >= 0; k++) {
    drivers.push({ variable: model.nodes[scored.driverNodes[k]!]!.name, contribution: scored.driverContributions[k]! });
  }
  const changes: ScoredRow['changes'] = [];
  for (let k = scored.changeStart[r]!; k < scored.changeStart[r + 1]!; k++) {
    const node = scored.changeNodes[k]!;
    changes.push({ variable: model.nodes[node]!.name, from: cell(model, node, scored.changeFrom[k]!), to: cell(model, node, scored.changeTo[k]!)! });
  }
  const reachable = scored.reachable[r]! < 0 ? null : scored.reachable[r] === 1;
  return { index: r, verdict: VERDICTS[scored.verdicts[r]!]!, predictions, drivers, changes, reachable };
}

/** 1 where the cell is missing, per node in model order. */
function missingMasks(frame: Frame): Uint8Array[] {
  return frame.columns.map((c) => {
    const out = new Uint8Array(frame.nRows);
    if (c.kind === 'continuous') for (let r = 0; r < out.length; r++) out[r] = Number.isNaN(c.values[r]!) ? 1 : 0;
    else for (let r = 0; r < out.length; r++) out[r] = c.codes[r]! < 0 ? 1 : 0;
    return out;
  });
}

/** 1 where a node's value is observed or follows from inferable parents (a missing root is never inferable). */
function inferableMasks(scm: Scm, missing: Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  scm.model.nodes.forEach((_, i) => {
    const parents = scm.parentsOf(i).map((p) => out[p]!);
    const absent = missing[i]!;
    const mask = new Uint8Array(absent.length);
    for (let r = 0; r < mask.length; r++) {
      if (absent[r] === 0) mask[r] = 1;
      else if (parents.length > 0) {
        let all = 1;
        for (const p of parents) all &= p[r]!;
        mask[r] = all;
      }
    }
    out.push(mask);
  });
  return out;
}

/** The missing roots a row's targets would need: the reason it is unscorable. */
function missingRoots(scm: Scm, targets: readonly ResolvedTarget[], inferable: Uint8Array[], missing: Uint8Array[], row: number): string[] {
  const out = new Set<string>();
  const visit = (i: number) => {
    if (inferable[i]![row] === 1) return;
    const parents = scm.parentsOf(i);
    if (parents.length === 0 && missing[i]![row] === 1) out.add(scm.names[i]!);
    parents.forEach(visit);
  };
  for (const t of targets) scm.parentsOf(t.index).forEach(visit);
  return [...out];
}

/**
 * Each scored row's top drivers (its variables' contributions summed over targets; several targets: in target
 * standard deviations), and per variable the digest's parts: the sum of |contribution| and the rows it leads.
 */
function rowDrivers(scm: Scm, targets: readonly ResolvedTarget[], completed: Frame, imputed: Uint8Array[], verdicts: Uint8Array) {
  const n = completed.nRows;
  const attribution = new DriverAttribution(scm, completed, imputed);
  const sums = new Map<number, Float64Array>();
  for (const t of targets) {
    const scale = targets.length > 1 && t.kind === 'continuous' ? 1 / t.scale : 1;
    for (const [variable, values] of attribution.of(t.index, t.kind === 'categorical' ? t.code : 0)) {
      let sum = sums.get(variable);
      if (!sum) sums.set(variable, (sum = new Float64Array(n)));
      for (let r = 0; r < n; r++) sum[r]! += scale * values[r]!;
    }
  }
  const variables = [...sums];
  const driverNodes = new Int32Array(n * DRIVERS_PER_ROW).fill(-1);
  const driverContributions = new Float64Array(n * DRIVERS_PER_ROW);
  const driverSums = new Float64Array(scm.names.length);
  const topCounts = new Int32Array(scm.names.length);
  for (let r = 0; r < n; r++) {
    if (verdicts[r] === UNSCORABLE) continue;
    // The row's largest contributions by absolute size, kept in place in the row's slots (ties in the variables'
    // order, as a stable sort would leave them).
    const first = r * DRIVERS_PER_ROW;
    let kept = 0;
    for (const [variable, values] of variables) {
      const contribution = values[r]!;
      driverSums[variable]! += Math.abs(contribution);
      if (contribution === 0 || !Number.isFinite(contribution)) continue;
      let at = kept;
      while (at > 0 && Math.abs(driverContributions[first + at - 1]!) < Math.abs(contribution)) at--;
      if (at >= DRIVERS_PER_ROW) continue;
      for (let k = Math.min(kept, DRIVERS_PER_ROW - 1); k > at; k--) {
        driverNodes[first + k] = driverNodes[first + k - 1]!;
        driverContributions[first + k] = driverContributions[first + k - 1]!;
      }
      driverNodes[first + at] = variable;
      driverContributions[first + at] = contribution;
      kept = Math.min(kept + 1, DRIVERS_PER_ROW);
    }
    if (kept > 0) topCounts[driverNodes[first]!]!++;
  }
  return { driversPerRow: DRIVERS_PER_ROW, driverNodes, driverContributions, driverSums, topCounts };
}

/** The changes found for the rows that miss (listed only when they meet the targets), as columns. */
function changeColumns(observed: Frame, answers: Map<number, UnitAnswer>, n: number) {
  const changeStart = new Int32Array(n + 1);
  const reachable = new Int8Array(n).fill(-1);
  const nodes: number[] = [];
  const from: number[] = [];
  const to: number[] = [];
  for (let r = 0; r < n; r++) {
    changeStart[r] = nodes.length;
    const answer = answers.get(r);
    if (answer === undefined) continue;
    reachable[r] = answer.achieved ? 1 : 0;
    if (!answer.achieved) continue;
    for (const c of answer.changes) {
      nodes.push(c.node);
      const column = observed.columns[c.node]!;
      // Model order and model categories (frameFromRecords, the batch's chunks): the observed value or class code.
      from.push(column.kind === 'continuous' ? column.values[r]! : column.codes[r]! < 0 ? Number.NaN : column.codes[r]!);
      to.push(c.to);
    }
  }
  changeStart[n] = nodes.length;
  return { changeStart, changeNodes: Int32Array.from(nodes), changeFrom: Float64Array.from(from), changeTo: Float64Array.from(to), reachable };
}

/** The change search for every row that misses, each with its own abducted noise (missing cells neutral). */
async function searchMisses(
  scm: Scm, plan: ReturnType<typeof planChangeSearch>, observed: Frame, verdicts: Uint8Array, targets: readonly ResolvedTarget[], context: InferenceContext,
): Promise<Map<number, UnitAnswer>> {
  const rows: number[] = [];
  verdicts.forEach((v, r) => {
    if (v === MISSES) rows.push(r);
  });
  const answers = new Map<number, UnitAnswer>();
  if (rows.length === 0) return answers;
  const probe = new UnitProbe(scm, abductNeutral(scm, selectRows(observed, rows), context.seed), targetPredictions(scm, targets));
  const checkpoint = () => {
    if (context.hooks.aborted?.() === true) throw new AbortError();
  };
  const found = searchUnits(plan, probe, checkpoint, (done) => context.hooks.progress?.(0.4 + 0.6 * done, 'searching changes for rows that miss'));
  found.forEach((answer, i) => answers.set(rows[i]!, answer));
  return answers;
}

/** A node's value as JSON (number or category label), null when missing. */
function cell(model: CbnModel, node: number, value: number): number | string | null {
  const variable = model.nodes[node]!;
  if (Number.isNaN(value)) return null;
  return variable.kind === 'categorical' ? variable.categories[value] ?? null : value;
}
