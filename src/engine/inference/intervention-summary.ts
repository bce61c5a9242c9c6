/** Plain-language summary of an intervention run: what was changed, for whom, and what moved most. */
import type { VariableEffect } from './intervention-effects.js';
import type { MetricEffect } from './intervention-metrics.js';
import type { Condition, Intervention, InterventionScenario } from './scenario.js';

/** "price set to 12", "demand changed by +10%", "P(channel = web) adjusted by +5 pp", ... plus its conditions. */
export function describeIntervention(iv: Intervention): string {
  const s = iv.valueSpec;
  const v = iv.variable;
  const what = (() => {
    switch (s.type) {
      case 'set_value': return `${v} set to ${show(s.value)}`;
      case 'relative_change': return s.mode === 'percentage' ? `${v} changed by ${signed(s.value)}%` : `${v} shifted by ${signed(s.value)}`;
      case 'set_probability': return `P(${v} = ${String(s.category)}) set to ${show(s.probability)}`;
      case 'adjust_probability': return `P(${v} = ${String(s.category)}) adjusted by ${signed(s.delta)} pp`;
      case 'set_members': {
        const parts = [s.include?.length ? `only ${s.include.map(String).join(', ')}` : '', s.exclude?.length ? `not ${s.exclude.map(String).join(', ')}` : '',
          s.size !== undefined ? `at most ${s.size} categories` : ''].filter((p) => p !== '');
        return `${v} limited to ${parts.join(', ') || 'its categories'}`;
      }
      case 'range': return `${v} swept from ${show(s.from)} to ${show(s.to)}`;
    }
  })();
  return iv.conditions && iv.conditions.length > 0 ? `${what} where ${iv.conditions.map(describeCondition).join(' and ')}` : what;
}

export function interventionSummary(
  scenario: InterventionScenario, samples: number, masks: Uint8Array[], result: { variables: VariableEffect[]; metrics: MetricEffect[] },
): { summary: string; keyPoints: string[] } {
  const changes = scenario.interventions.map((iv, k) => {
    const text = describeIntervention(iv);
    if (!iv.conditions || iv.conditions.length === 0) return text;
    const selected = masks[k]!.reduce((a, b) => a + b, 0);
    return `${text} (${percent(selected / Math.max(samples, 1))} of units)`;
  });
  const keyPoints = [
    ...result.metrics.map((m) => `${m.name}: ${show(m.baseline)} -> ${show(m.intervened)} (${signed(m.difference)}${m.unit ? ` ${m.unit}` : ''}, interval ${show(m.lowerBound)} to ${show(m.upperBound)}; ${m.improved ? 'improves' : 'does not improve'})`),
    ...rankedVariables(result.variables, scenario.interventions).map(describeEffect),
  ].slice(0, 5);
  if (keyPoints.length < 2) keyPoints.push(`${samples} simulated units per arm, sharing their random draws.`);
  const lead = result.metrics[0] ? keyPoints[0] : rankedVariables(result.variables, scenario.interventions).map(describeEffect)[0];
  return { summary: `${capitalise(changes.join('; '))}.${lead ? ` ${capitalise(lead)}.` : ''}`, keyPoints };
}

/** Outcomes other than the intervened variables first, largest relative change first. */
function rankedVariables(variables: VariableEffect[], interventions: Intervention[]): VariableEffect[] {
  const intervened = new Set(interventions.map((iv) => iv.variable));
  const size = (v: VariableEffect) => {
    const r = v.effect.relativeChange;
    if (Array.isArray(r)) return Math.max(0, ...(v.effect.difference as number[]).map(Math.abs));
    return r === null ? Math.abs(v.effect.difference as number) : Math.abs(r);
  };
  return [...variables].sort((a, b) => Number(intervened.has(a.variable)) - Number(intervened.has(b.variable)) || size(b) - size(a));
}

function describeEffect(v: VariableEffect): string {
  if (v.type === 'continuous') {
    const { difference, lowerBound, upperBound } = v.effect as { difference: number; lowerBound: number; upperBound: number };
    return `${v.variable}: mean ${show(v.baseline.mean!)} -> ${show(v.intervened.mean!)} (${signed(difference)}, interval ${show(lowerBound)} to ${show(upperBound)})`;
  }
  const difference = v.effect.difference as number[];
  const k = difference.reduce((best, d, i) => (Math.abs(d) > Math.abs(difference[best]!) ? i : best), 0);
  const before = v.baseline.probabilities![k]!;
  const after = v.intervened.probabilities![k]!;
  return `${v.variable} = ${v.categories![k]}: share ${percent(before)} -> ${percent(after)} (${signed(100 * difference[k]!)} pp)`;
}

function describeCondition(c: Condition): string {
  const op = { eq: '=', ne: '!=', gt: '>', lt: '<', ge: '>=', le: '<=', in: 'in', not_in: 'not in' }[c.operator];
  const value = Array.isArray(c.value) ? `{${c.value.map(String).join(', ')}}` : show(c.value);
  return `${c.variable} ${op} ${value}`;
}

function show(x: number | string | boolean): string {
  if (typeof x !== 'number') return String(x);
  if (x === 0 || !Number.isFinite(x)) return String(x);
  return Math.abs(x) >= 1e6 || Math.abs(x) < 1e-3 ? x.toExponential(3) : String(Number(x.toPrecision(4)));
}

const signed = (x: number) => (x > 0 ? `+${show(x)}` : show(x));
const percent = (x: number) => `${String(Number((100 * x).toPrecision(3)))}%`;
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
