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
import type { CbnModel, Frame } from '../types.js';
import type { FamilyOutcome, InferenceContext, ScoredRow, ScoreResult } from './outcome.js';
import type { ScoreRequest } from './scenario.js';
import { compileScm, frameFromRecords, type Scm, valueAt } from './scm.js';
import { describeRow, digestOf } from './score-digest.js';
import { type Contributions, DriverAttribution } from './score-drivers.js';
import { planChangeSearch, searchUnitChanges, type UnitAnswer } from './search.js';
import { type ResolvedTarget, resolveTargets, targetMet } from './target-match.js';
import { abductNeutral, completeNeutral, predictNode, targetPredictions, UnitProbe, unitNoise } from './unit-probe.js';

/** Drivers listed per row (the largest by absolute contribution). */
const DRIVERS_PER_ROW = 5;

export async function runScore(model: CbnModel, request: ScoreRequest, context: InferenceContext): Promise<FamilyOutcome> {
  const scm = compileScm(model);
  const targets = resolveTargets(scm, request.targets);
  const plan = planChangeSearch(scm, targets, { maxChanges: request.maxChanges, constraints: request.constraints });
  const observed = frameFromRecords(scm, request.rows);
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
  const drivers = rowDrivers(scm, targets, completed, imputed);
  context.hooks.progress?.(0.4, 'drivers');
  const verdicts: ScoredRow['verdict'][] = new Array(n);
  for (let r = 0; r < n; r++) {
    let met = true;
    for (let j = 0; j < targets.length && met; j++) met = targetMet(targets[j]!, predictions[j]![r]!);
    verdicts[r] = scorable[r] === 0 ? 'unscorable' : met ? 'meets' : 'misses';
  }
  const answers = await searchMisses(scm, plan, observed, verdicts, targets, context);
  const driverList = [...drivers].map(([variable, values]) => ({ name: scm.names[variable]!, values }));
  // A plain loop: this builds one object per input row, so it is the hot path of a large batch.
  const rows: ScoredRow[] = new Array(n);
  for (let r = 0; r < n; r++) {
    const verdict = verdicts[r]!;
    const answer = answers.size > 0 ? answers.get(r) : undefined;
    const predicted: ScoredRow['predictions'] = {};
    for (let j = 0; j < targets.length; j++) predicted[targets[j]!.name] = verdict === 'unscorable' ? null : cell(scm, targets[j]!.index, predictions[j]![r]!);
    rows[r] = {
      index: r,
      verdict,
      predictions: predicted,
      drivers: verdict === 'unscorable' ? [] : topDrivers(driverList, r),
      changes: answer?.achieved ? answer.changes.map((c) => ({ variable: scm.names[c.node]!, from: valueAt(observed, c.node, r), to: cell(scm, c.node, c.to)! })) : [],
      reachable: answer ? answer.achieved : null,
    };
  }
  const digest = digestOf(rows, drivers, scm, (row) => describeRow(targets, row, row.verdict === 'unscorable' ? missingRoots(scm, targets, inferable, imputed, row.index) : []));
  const score: ScoreResult = { digest, rows };
  context.hooks.progress?.(1, 'done');
  return { results: {}, details: { digest }, summary: summarise(digest, plan.maxChanges, rows), score };
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

/** Each variable's contribution per row, summed over targets (several targets: in target standard deviations). */
function rowDrivers(scm: Scm, targets: readonly ResolvedTarget[], completed: Frame, imputed: Uint8Array[]): Contributions {
  const attribution = new DriverAttribution(scm, completed, imputed);
  const out: Contributions = new Map();
  for (const t of targets) {
    const scale = targets.length > 1 && t.kind === 'continuous' ? 1 / t.scale : 1;
    for (const [variable, values] of attribution.of(t.index, t.kind === 'categorical' ? t.code : 0)) {
      let sum = out.get(variable);
      if (!sum) out.set(variable, (sum = new Float64Array(completed.nRows)));
      for (let r = 0; r < values.length; r++) sum[r]! += scale * values[r]!;
    }
  }
  return out;
}

function topDrivers(drivers: readonly { name: string; values: Float64Array }[], row: number): ScoredRow['drivers'] {
  const out: ScoredRow['drivers'] = [];
  for (const { name, values } of drivers) {
    const contribution = values[row]!;
    if (contribution !== 0 && Number.isFinite(contribution)) out.push({ variable: name, contribution });
  }
  if (out.length > 1) out.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution));
  if (out.length > DRIVERS_PER_ROW) out.length = DRIVERS_PER_ROW;
  return out;
}

/** The change search for every row that misses, each with its own abducted noise (missing cells neutral). */
async function searchMisses(
  scm: Scm, plan: ReturnType<typeof planChangeSearch>, observed: Frame, verdicts: ScoredRow['verdict'][], targets: readonly ResolvedTarget[], context: InferenceContext,
): Promise<Map<number, UnitAnswer>> {
  const rows = verdicts.flatMap((v, r) => (v === 'misses' ? [r] : []));
  const answers = new Map<number, UnitAnswer>();
  if (rows.length === 0) return answers;
  const noise = abductNeutral(scm, selectRows(observed, rows), context.seed);
  const readout = targetPredictions(scm, targets);
  const checkpoint = () => {
    if (context.hooks.aborted?.() === true) throw new AbortError();
  };
  for (let i = 0; i < rows.length; i++) {
    checkpoint();
    if (i % 16 === 0) context.hooks.progress?.(0.4 + (0.6 * i) / rows.length, 'searching changes for rows that miss');
    answers.set(rows[i]!, searchUnitChanges(plan, new UnitProbe(scm, unitNoise(noise, i), readout), checkpoint));
  }
  return answers;
}

/** A node's value as JSON (number or category label), null when missing. */
function cell(scm: Scm, node: number, value: number): number | string | null {
  const model = scm.model.nodes[node]!;
  if (Number.isNaN(value)) return null;
  return model.kind === 'categorical' ? model.categories[value] ?? null : value;
}

function summarise(digest: ScoreResult['digest'], maxChanges: number, rows: ScoredRow[]): FamilyOutcome['summary'] {
  const { meets, misses, unscorable } = digest.verdicts;
  const reachable = rows.filter((r) => r.reachable === true).length;
  const keyPoints = [
    `${meets} row${meets === 1 ? '' : 's'} meet the targets, ${misses} miss, ${unscorable} cannot be scored.`,
    ...(misses > 0 ? [`${reachable} of the ${misses} rows that miss can meet the targets with at most ${maxChanges} change${maxChanges === 1 ? '' : 's'}.`] : []),
    ...digest.topDrivers.slice(0, 3).map((d) => `${d.variable} moves the targets most in ${d.rows} row${d.rows === 1 ? '' : 's'} (mean |contribution| ${Number(d.meanAbsContribution.toPrecision(3))}).`),
  ];
  return { summary: `Scored ${digest.rows} rows: ${meets} meet, ${misses} miss, ${unscorable} unscorable.`, keyPoints };
}
