/**
 * What an optimisation scores: the weighted objectives and the constraints on outcomes, measured on a simulated
 * population. Each objective is the mean of a numeric variable or a metric's SQL value, normalised by the
 * baseline's scale (a variable: its baseline std; a metric: |its baseline value|) so a weight means the same for
 * every objective: score = sum of weight x (+1 maximise, -1 minimise) x (value - baseline) / scale. A
 * categorical variable has no mean: its objective must count the wanted class in metricSqlQuery. Constraints
 * become penalties far larger than any objective move (Deb 2000: a feasible point always beats an infeasible one
 * of similar objective), scaled by how far each is violated.
 */
import { AppError } from '../../errors.js';
import type { Frame } from '../types.js';
import type { InferenceContext } from './outcome.js';
import type { MetricConstraint, Objective, OptimisationScenario } from './scenario.js';
import { meanStd } from './optimisation-space.js';

const PENALTY_PER_VIOLATION = 100;
const PENALTY_PER_UNIT = 1000;

interface ObjectiveGoal {
  spec: Objective;
  sign: 1 | -1;
  weight: number;
  /** Node index of a variable objective, -1 for a metric. */
  variable: number;
  sql: string | null;
}

/** A constraint on an outcome variable that is not a decision variable: its population mean. */
interface OutcomeGoal {
  variable: number;
  name: string;
  type: 'range' | 'maxChangePercent';
  low: number;
  high: number;
  percent: number;
}

export interface Measurement {
  objectives: number[];
  metrics: number[];
  outcomes: number[];
}

export interface Assessment {
  score: number;
  /** Penalised score: what the search maximises. */
  penalised: number;
  satisfied: boolean[];
  outcomeSatisfied: boolean[];
}

export interface GoalSpace {
  indexOf(name: string): number;
  model: { nodes: ReadonlyArray<{ kind: 'continuous' | 'categorical' }> };
}

export class Goals {
  readonly objectives: ObjectiveGoal[];
  readonly metricConstraints: MetricConstraint[];
  readonly outcomeConstraints: OutcomeGoal[];
  private base: Measurement | null = null;
  private scales: number[] = [];
  /** Each objective's target level (NaN without a target): past it an objective earns no more. */
  private targets: number[] = [];
  private outcomeScales: number[] = [];

  /** `space` is what the measured frames are laid out over (column i is its variable i): a twin's SCM, or the
   * variables of a temporal twin's simulated future. */
  constructor(space: GoalSpace, scenario: Pick<OptimisationScenario, 'objectives' | 'decisionVars' | 'variableConstraints' | 'metricConstraints'>) {
    if (scenario.objectives.length === 0) throw invalid('objectives must hold at least one objective');
    this.objectives = scenario.objectives.map((o) => {
      if (o.direction !== 'maximise' && o.direction !== 'minimise') throw invalid('an objective direction is maximise or minimise');
      const weight = o.weight ?? 1;
      if (!Number.isFinite(weight)) throw invalid('an objective weight must be a finite number');
      if (o.metricSqlQuery) return { spec: o, sign: o.direction === 'maximise' ? 1 : -1, weight, variable: -1, sql: o.metricSqlQuery };
      if (!o.variable) throw invalid('an objective needs a variable or a metricSqlQuery');
      const variable = space.indexOf(o.variable);
      if (variable < 0) throw invalid(`objective variable ${o.variable} is not a variable of the model`);
      if (space.model.nodes[variable]!.kind !== 'continuous') {
        throw invalid(`objective variable ${o.variable} is categorical and has no mean: count the wanted class in metricSqlQuery (e.g. avg(CASE WHEN ${o.variable} = '...' THEN 1 ELSE 0 END))`);
      }
      return { spec: o, sign: o.direction === 'maximise' ? 1 : -1, weight, variable, sql: null };
    });
    this.metricConstraints = (scenario.metricConstraints ?? []).map((c) => {
      if (c.constraintType === 'fixed_boolean' ? typeof c.booleanValue !== 'boolean' : typeof c.value !== 'number' || !Number.isFinite(c.value)) {
        throw invalid(`metric constraint ${c.metricName}: ${c.constraintType} needs ${c.constraintType === 'fixed_boolean' ? 'booleanValue' : 'a numeric value'}`);
      }
      return c;
    });
    const levers = new Set(scenario.decisionVars);
    this.outcomeConstraints = (scenario.variableConstraints ?? []).filter((c) => !levers.has(c.variable)).flatMap((c): OutcomeGoal[] => {
      const variable = space.indexOf(c.variable);
      if (variable < 0) throw invalid(`constraint on ${c.variable}, which is not a variable of the model`);
      if (space.model.nodes[variable]!.kind !== 'continuous' || c.type === 'set' || c.conditionalAllowedValues) {
        throw invalid(`constraint on ${c.variable}: a variable that is not a decision variable takes only a range or maxChangePercent on its mean`);
      }
      const out: OutcomeGoal[] = [];
      if (c.minValue !== undefined || c.maxValue !== undefined) out.push({ variable, name: c.variable, type: 'range', low: c.minValue ?? -Infinity, high: c.maxValue ?? Infinity, percent: 0 });
      if (c.maxChangePercent !== undefined) out.push({ variable, name: c.variable, type: 'maxChangePercent', low: 0, high: 0, percent: c.maxChangePercent });
      return out;
    });
  }

  /** Every objective, metric constraint and outcome constraint measured on a frame (a constraint on its own frame
   * when `constraintFrame` gives one); each distinct SQL runs once per frame, one at a time (the data engine's
   * session answers queries in turn). */
  async measure(frame: Frame, context: InferenceContext, constraintFrame: (i: number) => Frame = () => frame): Promise<Measurement> {
    const sqlValues = new Map<Frame, Map<string, number>>();
    const metric = async (sql: string, on: Frame = frame) => {
      const values = sqlValues.get(on) ?? new Map<string, number>();
      sqlValues.set(on, values);
      let value = values.get(sql);
      if (value === undefined) values.set(sql, (value = await context.evaluateMetric(on, sql)));
      return value;
    };
    const mean = (variable: number) => {
      const column = frame.columns[variable]!;
      return column.kind === 'continuous' ? meanStd(column.values).mean : Number.NaN;
    };
    const objectives: number[] = [];
    for (const o of this.objectives) objectives.push(o.sql ? await metric(o.sql) : mean(o.variable));
    const metrics: number[] = [];
    for (const [i, c] of this.metricConstraints.entries()) metrics.push(await metric(c.sqlQuery, constraintFrame(i)));
    return { objectives, metrics, outcomes: this.outcomeConstraints.map((c) => mean(c.variable)) };
  }

  /** Fixes the baseline the objectives and percentage constraints are relative to. */
  setBaseline(frame: Frame, measured: Measurement): void {
    this.base = measured;
    this.scales = this.objectives.map((o, i) => {
      if (o.sql) return Math.abs(measured.objectives[i]!) > 0 ? Math.abs(measured.objectives[i]!) : 1;
      const column = frame.columns[o.variable]!;
      return column.kind === 'continuous' ? meanStd(column.values).std : 1;
    });
    this.targets = this.objectives.map((o, i) => targetLevel(o, measured.objectives[i]!));
    this.outcomeScales = this.outcomeConstraints.map((c) => {
      const column = frame.columns[c.variable]!;
      return column.kind === 'continuous' ? meanStd(column.values).std : 1;
    });
  }

  get baseline(): Measurement {
    if (!this.base) throw new Error('the baseline is not measured yet');
    return this.base;
  }

  /** The level an objective aims at (NaN without a target). */
  target(i: number): number {
    return this.targets[i] ?? Number.NaN;
  }

  /** Whether objective i reached its target at `value` (null without a target). */
  targetMet(i: number, value: number): boolean | null {
    const level = this.target(i);
    if (Number.isNaN(level)) return null;
    // Met within a thousandth of the objective's scale: the search stops at the target, not always past it.
    return this.objectives[i]!.sign * (value - level) >= -1e-3 * (this.scales[i] ?? 1);
  }

  assess(m: Measurement): Assessment {
    const base = this.baseline;
    // Goal programming (Charnes & Cooper 1961): an objective with a target counts only up to it.
    const reached = (i: number) => {
      const o = this.objectives[i]!;
      const level = this.target(i);
      const value = m.objectives[i]!;
      return Number.isNaN(level) ? value : o.sign > 0 ? Math.min(value, Math.max(level, base.objectives[i]!)) : Math.max(value, Math.min(level, base.objectives[i]!));
    };
    const score = this.objectives.reduce((s, o, i) => s + (o.weight * o.sign * (reached(i) - base.objectives[i]!)) / this.scales[i]!, 0);
    let violations = 0;
    let amount = 0;
    const satisfied = this.metricConstraints.map((c, i) => {
      const v = metricViolation(c, m.metrics[i]!, base.metrics[i]!);
      if (v > 0) {
        violations++;
        amount += v;
      }
      return v === 0;
    });
    const outcomeSatisfied = this.outcomeConstraints.map((c, i) => {
      const value = m.outcomes[i]!;
      const before = base.outcomes[i]!;
      const v = c.type === 'range'
        ? Math.max(0, c.low - value, value - c.high) / this.outcomeScales[i]!
        : Math.max(0, (Math.abs(value - before) / Math.max(Math.abs(before), 1e-12)) * 100 - c.percent) / 100;
      if (v > 0) {
        violations++;
        amount += v;
      }
      return v === 0;
    });
    const penalised = Number.isNaN(score) ? -Infinity : score - PENALTY_PER_VIOLATION * violations - PENALTY_PER_UNIT * amount;
    return { score, penalised, satisfied, outcomeSatisfied };
  }
}

/** An objective's target as a level: `absolute` is the level; `percentage` an improvement over the baseline. */
function targetLevel(o: ObjectiveGoal, baseline: number): number {
  const target = o.spec.target;
  if (target === undefined) return Number.NaN;
  if (!Number.isFinite(target.value)) throw invalid('an objective target value must be a finite number');
  return target.type === 'absolute' ? target.value : baseline + (o.sign * Math.abs(baseline) * target.value) / 100;
}

/** How far a metric constraint is violated (0 = satisfied), relative to the baseline's scale. */
function metricViolation(c: MetricConstraint, value: number, baseline: number): number {
  if (Number.isNaN(value)) return 1;
  const limit = c.value ?? 0;
  const scale = Math.abs(baseline) > 0 ? Math.abs(baseline) : 1;
  const percent = ((value - baseline) / scale) * 100;
  switch (c.constraintType) {
    case 'min_value': return Math.max(0, limit - value) / scale;
    case 'max_value': return Math.max(0, value - limit) / scale;
    case 'max_decrease_percent': return Math.max(0, -percent - limit) / 100;
    case 'max_increase_percent': return Math.max(0, percent - limit) / 100;
    case 'fixed_boolean': return (value !== 0) === c.booleanValue ? 0 : 1;
  }
}

function invalid(detail: string): AppError {
  return new AppError('validation_failed', detail);
}
