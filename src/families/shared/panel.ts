/**
 * Panel families of multi-environment static twins: a static family's definition (references, rules, metric SQL)
 * over the same members, plus `environments` checked against the version's environment keys. The engine side is
 * engine/panel/questions.ts (`perEnvironment`).
 */
import type { TSchema } from 'typebox';
import { type CheckContext, type FamilyDefinition, type ScenarioError, defineFamily } from '../family.js';

interface WithEnvironments {
  type: string;
  environments?: string[];
}

export function panelFamily(base: FamilyDefinition, type: string, schema: TSchema, engine: string): FamilyDefinition {
  const asBase = (s: WithEnvironments) => ({ ...s, type: base.type });
  return defineFamily<WithEnvironments>({
    type,
    twinKinds: ['multi-environment-static'],
    schema,
    references: (s, context) => base.references(asBase(s), context),
    rules: (s, context) => [...(base.rules?.(asBase(s), context) ?? []), ...environmentRules(s, context)],
    ...(base.metricQueries === undefined ? {} : { metricQueries: (s: WithEnvironments) => base.metricQueries!(asBase(s)) }),
    engine,
  });
}

/** `environments` names environments of the version, on a multi-environment twin only. */
export function environmentRules(s: { environments?: string[] }, context: CheckContext): ScenarioError[] {
  if (s.environments === undefined) return [];
  if (context.environments === undefined) return [{ location: '/environments', message: `a ${context.twinType} twin has no environments: environments are for multi-environment twins` }];
  const known = new Set(context.environments);
  return s.environments.flatMap((key, i) => (known.has(key) ? [] : [{ location: `/environments/${i}`, message: `'${key}' is not an environment of this version (GET .../environments lists them)` }]));
}

