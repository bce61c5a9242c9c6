/**
 * The spec's shared Scenario members (conditions, segmentDefinitions, enableSegmentInterventions,
 * interventionTypes): the families that simulate a population take them; the families that answer given samples
 * refuse them, saying why.
 */
import type { ScenarioScope, Segment } from '../../engine/inference/scenario.js';
import type { ScenarioError } from '../family.js';
import { conditionReferences } from './rows.js';

/** The variables the scope members name (any family: those that refuse a scope still name unknown variables). */
export function scopeReferences(scenario: object): Array<[string, string]> {
  const s = scenario as ScenarioScope;
  return [
    ...conditionReferences(s.conditions, '/conditions'),
    ...(s.segmentDefinitions ?? []).flatMap((segment, i) => conditionReferences(segment.conditions, `/segmentDefinitions/${i}/conditions`)),
    ...Object.keys(s.interventionTypes ?? {}).map((key): [string, string] => [key, `/interventionTypes/${key}`]),
  ];
}

/** A family that answers the samples it is given: a population scope cannot apply to it. */
export function sampleScopeRules(type: string, scenario: object): ScenarioError[] {
  const raw = scenario as Record<string, unknown>;
  const reasons: Record<string, string> = {
    conditions: `${type} answers the samples it is given: send only the samples to answer instead of conditions`,
    segmentDefinitions: `${type} answers the samples it is given: segments apply to intervention, optimisation and explanation`,
    enableSegmentInterventions: `${type} makes no intervention on a population: segment interventions apply to intervention and optimisation`,
    interventionTypes: `${type} has no decision variables: interventionTypes applies to optimisation (and must agree with an intervention's valueSpec)`,
  };
  return Object.entries(reasons).filter(([member]) => raw[member] !== undefined).map(([member, message]) => ({ location: `/${member}`, message }));
}

/** Segment ids distinct (over `extra` segments too), and segment interventions only with segments. */
export function segmentRules(s: ScenarioScope, extra: readonly Segment[] = []): ScenarioError[] {
  const errors: ScenarioError[] = [];
  const ids = [...(s.segmentDefinitions ?? []), ...extra].map((segment) => segment.id);
  if (new Set(ids).size !== ids.length) errors.push({ location: s.segmentDefinitions ? '/segmentDefinitions' : '/segments', message: 'segment ids must be distinct' });
  if (s.enableSegmentInterventions === true && (s.segmentDefinitions ?? []).length === 0) {
    errors.push({ location: '/enableSegmentInterventions', message: 'enableSegmentInterventions needs segmentDefinitions' });
  }
  return errors;
}
