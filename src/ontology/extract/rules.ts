/**
 * Relationship rules mined from a source's rows: conditional value sets between two categorical fields (when
 * `country` is "US", `currency` is one of {"USD"}), in the spirit of association-rule mining (Agrawal & Srikant
 * 1994: support and confidence), and numeric ranges. Noise is allowed: a rule keeps the fewest values covering
 * 99% of the rows meeting its condition, and says how many rows break it.
 */

export interface PairCount {
  a: string;
  b: string;
  count: number;
}

export interface MinedRule {
  ruleType: 'conditional_values' | 'range';
  /** The constrained field. */
  field: string;
  condition: { variable: string; operator: 'eq'; value: string } | null;
  allowedValues: string[];
  minValue: number | null;
  maxValue: number | null;
  confidence: number;
  support: number;
  violationRate: number;
  strength: 'hard' | 'soft';
}

/** A value of the condition needs this many rows (and 1% of them) before a rule is stated on it. */
export const MIN_SUPPORT = 20;
const COVERAGE = 0.99;
/** A rule must rule out something: it allows at most half of the constrained field's values. */
const MAX_ALLOWED_SHARE = 0.5;

/**
 * Rules "when `conditionField` = a, `field` is one of ..." from the joint counts of the two fields over `rows`
 * rows. Only values of the condition with enough support, and only value sets that rule out something.
 */
export function conditionalRules(conditionField: string, field: string, counts: PairCount[], rows: number): MinedRule[] {
  const domain = new Set(counts.map((c) => c.b));
  const byCondition = new Map<string, PairCount[]>();
  for (const count of counts) byCondition.set(count.a, [...(byCondition.get(count.a) ?? []), count]);
  const rules: MinedRule[] = [];
  for (const [value, group] of byCondition) {
    const support = group.reduce((sum, c) => sum + c.count, 0);
    if (support < Math.max(MIN_SUPPORT, 0.01 * rows)) continue;
    const ranked = [...group].sort((x, y) => y.count - x.count || x.b.localeCompare(y.b));
    const allowed: string[] = [];
    let covered = 0;
    for (const entry of ranked) {
      if (covered >= COVERAGE * support) break;
      allowed.push(entry.b);
      covered += entry.count;
    }
    if (allowed.length > Math.max(1, MAX_ALLOWED_SHARE * domain.size) || allowed.length === domain.size) continue;
    const confidence = covered / support;
    rules.push({
      ruleType: 'conditional_values',
      field,
      condition: { variable: conditionField, operator: 'eq', value },
      allowedValues: allowed.sort(),
      minValue: null,
      maxValue: null,
      confidence,
      support,
      violationRate: 1 - confidence,
      strength: confidence === 1 ? 'hard' : 'soft',
    });
  }
  // Deterministic order (the engine's GROUP BY answers in any order): a re-extraction of the same rows says the same.
  return rules.sort((x, y) => y.support - x.support || String(x.condition!.value).localeCompare(String(y.condition!.value)));
}

/** The observed range of a numeric field (a hard rule over its non-null rows). */
export function rangeRule(field: string, min: number, max: number, support: number): MinedRule {
  return { ruleType: 'range', field, condition: null, allowedValues: [], minValue: min, maxValue: max, confidence: 1, support, violationRate: 0, strength: 'hard' };
}

/**
 * Whether one time field precedes another on the rows that have both: `precedes` when `a <= b` on at least 99%
 * of them (and they are not simply equal), `follows` for the reverse, null otherwise or with fewer than 10 rows.
 */
export function temporalOrder(counts: { both: number; aBeforeOrSame: number; aAfterOrSame: number }): { relation: 'precedes' | 'follows'; violationRate: number } | null {
  if (counts.both < 10) return null;
  const before = counts.aBeforeOrSame / counts.both;
  const after = counts.aAfterOrSame / counts.both;
  if (before >= COVERAGE && after < 0.5) return { relation: 'precedes', violationRate: 1 - before };
  if (after >= COVERAGE && before < 0.5) return { relation: 'follows', violationRate: 1 - after };
  return null;
}
