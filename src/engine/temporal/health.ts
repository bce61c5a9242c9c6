/**
 * causal_health_monitor: do the twin's mechanisms still hold over the recent data? For each variable with a
 * numeric mechanism, its standardised residuals over the window are scanned (health-scan.ts) along each input
 * (a link: did its coefficient change, and since when), along the level and along the noise scale (did the
 * variable drift or get noisier), and for single-step outliers. Every link and variable gets an alert type (spec
 * AlertType):
 * - `spike`: one step departs, the rest hold;
 * - `sustained`: a departure since some step that holds steady to the end of the window;
 * - `worsening`: a departure that grows (its second half departs more than its first, beyond noise);
 * - `improving`: a departure that has faded (the steps after it are back to what the version learned);
 * - `normal`: nothing beyond what unchanged data shows at the chosen rate.
 * `targetFpr` is the chance that an unchanged link or variable raises any alert in one run (its tests share it by
 * Bonferroni). A categorical mechanism is watched as a whole, by how well it still predicts the classes seen, and
 * each link into it by how its input moves the classes' probabilities (health-categorical.ts).
 */
import { DEFAULT_TARGET_FPR, modelColumns, noiseTailProbabilities } from '../inference/calibration.js';
import type { FamilyOutcome, InferenceContext } from '../inference/outcome.js';
import { conditionalMeanInto } from '../inference/scm-plan.js';
import { plansOf } from '../inference/scm.js';
import { scmOf } from './future.js';
import { watchCategorical, watchCategoricalLinks } from './health-categorical.js';
import { type AlertType, type LinkHealth, type MechanismHealth, type VariableHealth, watchMechanism } from './health-watch.js';
import { type TemporalModel, timeText } from './model.js';
import type { HealthMonitorScenario } from './scenario.js';
import { type SampleWindow, designOf, keptWindow, sampleWindow } from './window.js';

export type { AlertType, LinkHealth, VariableHealth } from './health-watch.js';

/** Steps of the version's own data watched when no samples are given. */
export const DEFAULT_WINDOW_STEPS = 200;
const DEFAULT_MIN_SEGMENT = 10;
/** Steps of the version's history its residuals' persistence is measured on. */
const PERSISTENCE_STEPS = 1000;

export async function runHealthMonitor(model: TemporalModel, scenario: HealthMonitorScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const window = scenario.samples === undefined ? historyWindow(model, scenario.windowSteps ?? DEFAULT_WINDOW_STEPS) : sampleWindow(model, scenario.samples);
  const targetFpr = scenario.targetFpr ?? DEFAULT_TARGET_FPR;
  const minSteps = scenario.minSegmentSteps ?? DEFAULT_MIN_SEGMENT;
  const level = scenario.confidenceLevel ?? 0.95;
  const scm = scmOf(model);
  const plans = plansOf(scm);
  const design = designOf(model, window);
  const columns = modelColumns(scm, design);
  const noise = noiseTailProbabilities(scm, design);
  const persistence = residualPersistence(model, scm);
  const categoriesOf = (column: number) => { const p = plans[column]!; return p.kind === 'categorical' ? p.categories : null; };
  const links: LinkHealth[] = [];
  const variables: VariableHealth[] = [];
  const unmonitored: Array<{ variable: string; reason: string }> = [];
  for (const [v, variable] of model.variables.entries()) {
    context.hooks.progress?.(v / model.variables.length, `watching ${variable.name}`);
    const j = scm.indexOf(variable.name);
    const plan = plans[j]!;
    const node = model.cbn.nodes[j]!;
    const rows: number[] = [];
    for (let r = 0; r < design.nRows; r++) if (!Number.isNaN(noise[j]![r]!)) rows.push(r);
    if (rows.length < 2 * minSteps) {
      unmonitored.push({ variable: variable.name, reason: `${rows.length} steps of the window have the variable and every input observed; at least ${2 * minSteps} are needed` });
      continue;
    }
    if (plan.kind === 'categorical') {
      // A categorical mechanism is watched as a whole by its fit, and each link by how its input moves the classes.
      variables.push(watchCategorical(window, { plan, name: variable.name, columns, rows }, { targetFpr, minSteps, level, seed: context.seed + v }));
      links.push(...watchCategoricalLinks(model, window, { plan, name: variable.name, names: scm.names, columns, rows, categoriesOf }, { targetFpr, minSteps, level, seed: context.seed + v }));
      continue;
    }
    if (node.kind !== 'continuous') throw new Error(`${variable.name}: a numeric plan of a categorical node`);
    const watched = watchMechanism(model, window, { plan, node, columns, rows, noise: noise[j]! }, { targetFpr, minSteps, level, seed: context.seed + v, persistence: persistence[j] ?? 0 });
    links.push(...watched.links);
    variables.push(watched.variable);
    await Promise.resolve();
  }
  context.hooks.progress?.(1, 'done');
  const counts: Record<AlertType, number> = { spike: 0, worsening: 0, improving: 0, sustained: 0, normal: 0 };
  for (const item of [...links, ...variables]) counts[item.alertType]++;
  return {
    results: {},
    details: {
      targetFpr,
      confidenceLevel: level,
      minSegmentSteps: minSteps,
      window: { records: window.recordOf.filter((i) => i >= 0).length, steps: window.frame.nRows, from: window.times[0] ?? null, to: window.times.at(-1) ?? null, source: scenario.samples === undefined ? 'version history' : 'samples' },
      counts,
      links,
      variables,
      unmonitored,
    },
    summary: healthSummary(model, links, variables, counts, targetFpr),
  };
}

/**
 * Per node (model order), the lag-1 autocorrelation of its standardised residuals over the history the version
 * keeps (0 where there are too few): a mechanism that leaves some persistence in its residuals shows runs of
 * departures without any change, and the scan's null draws must have them too.
 */
function residualPersistence(model: TemporalModel, scm: ReturnType<typeof scmOf>): number[] {
  const history = historyWindow(model, PERSISTENCE_STEPS);
  const design = designOf(model, history);
  const columns = modelColumns(scm, design);
  const noise = noiseTailProbabilities(scm, design);
  return plansOf(scm).map((plan, j) => {
    if (plan.kind !== 'continuous') return 0;
    const mean = new Float64Array(design.nRows);
    conditionalMeanInto(plan, columns, design.nRows, mean);
    const x = columns[j] as Float64Array;
    let products = 0;
    let squares = 0;
    let pairs = 0;
    for (let t = 1; t < design.nRows; t++) {
      if (Number.isNaN(noise[j]![t]!) || Number.isNaN(noise[j]![t - 1]!)) continue;
      const a = (x[t]! - mean[t]!) / plan.scale;
      const b = (x[t - 1]! - mean[t - 1]!) / plan.scale;
      products += a * b;
      squares += (a * a + b * b) / 2;
      pairs++;
    }
    return pairs < 50 || squares === 0 ? 0 : Math.max(-0.9, Math.min(0.9, products / squares));
  });
}

/** The last `steps` steps of the data the version keeps, as a window. */
function historyWindow(model: TemporalModel, steps: number): SampleWindow {
  const count = Math.min(steps, model.tail.times.length);
  return keptWindow(model, model.tail.times.length - count, model.tail.times.length);
}
function healthSummary(model: TemporalModel, links: LinkHealth[], variables: VariableHealth[], counts: Record<AlertType, number>, targetFpr: number): FamilyOutcome['summary'] {
  const alerts = [...links, ...variables].filter((item) => item.alertType !== 'normal').sort((a, b) => a.pValue - b.pValue);
  const total = links.length + variables.length;
  const rate = `${Number((targetFpr * 100).toPrecision(3))}%`;
  if (alerts.length === 0) {
    return { summary: `All ${links.length} links and ${variables.length} variables watched behave as the version learned (each would raise a false alert with probability ${rate}).`, keyPoints: [] };
  }
  const since = (item: MechanismHealth) => (item.evidence.since.timestamp === null ? `step ${item.evidence.since.index}` : timeText(model, item.evidence.since.timestamp));
  const name = (item: LinkHealth | VariableHealth) => ('variable' in item ? item.variable : `${item.source} -> ${item.target}${item.lag === 0 ? '' : ` (lag ${item.lag})`}`);
  const shown = (x: number) => String(Number(x.toPrecision(3)));
  const keyPoints = alerts.slice(0, 8).map((item) => `${name(item)}: ${item.alertType} since ${since(item)} (${item.evidence.measure} ${shown(item.evidence.then.value)} learned, ${shown(item.evidence.now.value)} now; p = ${item.pValue.toExponential(1)})`);
  const kinds = (['spike', 'worsening', 'sustained', 'improving'] as const).filter((k) => counts[k] > 0).map((k) => `${counts[k]} ${k}`);
  return { summary: `${alerts.length} of ${total} mechanisms watched have changed (${kinds.join(', ')}); first: ${keyPoints[0]}.`, keyPoints };
}
