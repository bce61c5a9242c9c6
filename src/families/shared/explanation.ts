/** The explanation families' modes: what each needs named. */
import type { ScenarioError } from '../family.js';

export function explanationModeRules(s: { explanationMode: 'discovery' | 'impact' | 'directional'; effectVariable?: string; causeVariable?: string }): ScenarioError[] {
  const errors: ScenarioError[] = [];
  if (s.explanationMode !== 'impact' && s.effectVariable === undefined) errors.push({ location: '/effectVariable', message: `explanationMode '${s.explanationMode}' needs effectVariable` });
  if (s.explanationMode !== 'discovery' && s.causeVariable === undefined) errors.push({ location: '/causeVariable', message: `explanationMode '${s.explanationMode}' needs causeVariable` });
  return errors;
}
