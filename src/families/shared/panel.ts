/**
 * Panel families of multi-environment twins: a static (temporal) family's definition (references, rules, metric
 * SQL) over the same members, plus `environments` checked against the version's environment keys; window families
 * of temporal panels also take `panelSamples`, each environment's own window. The engine side is
 * engine/panel/questions.ts (`perEnvironment`).
 */
import type { TSchema } from 'typebox';
import type { TwinType } from '../../../schemas/twins.js';
import { rowEnvironment } from '../../engine/panel/keys.js';
import { type CheckContext, type FamilyDefinition, type ScenarioError, defineFamily } from '../family.js';

interface WithEnvironments {
  type: string;
  environments?: string[];
}

export function panelFamily(base: FamilyDefinition, type: string, schema: TSchema, engine: string, twinKind: TwinType = 'multi-environment-static'): FamilyDefinition {
  const asBase = (s: WithEnvironments) => ({ ...s, type: base.type });
  return defineFamily<WithEnvironments>({
    type,
    twinKinds: [twinKind],
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


/**
 * Records that name their environment (every environment column of the panel, as a prediction row may): either all
 * records do or none does; each names an environment of the version; and they are not also given `environments`
 * (the rows say where they are). Such records are answered each by its own environment's mechanisms.
 */
export function rowEnvironmentRules(s: { environments?: string[]; sample?: ReadonlyArray<Readonly<Record<string, unknown>>> }, context: Pick<CheckContext, 'environmentColumns' | 'environments'>): ScenarioError[] {
  const columns = context.environmentColumns ?? [];
  const rows = s.sample ?? [];
  if (columns.length === 0 || rows.length === 0) return [];
  const naming = rows.map((row) => columns.filter((column) => row[column] !== undefined && row[column] !== null).length);
  const partial = naming.findIndex((n) => n > 0 && n < columns.length);
  if (partial >= 0) return [{ location: `/sample/${partial}`, message: `a record names its environment with every environment column (${columns.join(', ')}) or with none` }];
  if (naming.every((n) => n === 0)) return [];
  const mixed = naming.findIndex((n) => n === 0);
  if (mixed >= 0) return [{ location: `/sample/${mixed}`, message: `the other records name their environment (${columns.join(', ')}): name it in every record, or in none` }];
  if (s.environments !== undefined) return [{ location: '/environments', message: 'the records name their environments: leave out environments (or the environment columns of the records)' }];
  const known = new Set(context.environments ?? []);
  return rows.flatMap((row, i) => {
    const key = rowEnvironment(row, columns);
    return known.has(key) ? [] : [{ location: `/sample/${i}`, message: `'${key}' is not an environment of this version (GET .../environments lists them)` }];
  });
}

interface WithWindows extends WithEnvironments {
  samples?: unknown[];
  panelSamples?: Record<string, unknown[]>;
}

/** A JSON pointer segment (RFC 6901): `~` and `/` escaped. */
const pointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * A window family of temporal panels: the base family's references and rules applied to the shared window and to
 * each environment's own (located under `/panelSamples/<key>`); `panelSamples` keys are environments of the
 * version, and every environment answered has a window (or the base family can do without one).
 */
export function panelWindowFamily(base: FamilyDefinition, type: string, schema: TSchema, engine: string, windowRequired: boolean): FamilyDefinition {
  const windows = (s: WithWindows): Array<{ at: string; scenario: { type: string } }> => {
    const { panelSamples, environments: _environments, ...members } = s;
    const shared = { at: '', scenario: { ...members, type: base.type } };
    const own = Object.entries(panelSamples ?? {}).map(([key, samples]) => ({ at: `/panelSamples/${pointer(key)}`, scenario: { ...members, samples, type: base.type } }));
    if (s.samples === undefined && own.length === 0) return windowRequired ? [] : [shared];
    return s.samples === undefined ? own : [shared, ...own];
  };
  const relocate = (at: string, location: string) => (at !== '' && location.startsWith('/samples') ? `${at}${location.slice('/samples'.length)}` : location);
  return defineFamily<WithWindows>({
    type,
    twinKinds: ['multi-environment-temporal'],
    schema,
    references: (s, context) => windows(s).flatMap(({ at, scenario }) => base.references(scenario, context).map(([variable, location]): [string, string] => [variable, relocate(at, location)])),
    rules: (s, context) => {
      const seen = new Set<string>();
      const errors = windows(s).flatMap(({ at, scenario }) => (base.rules?.(scenario, context) ?? []).map((e) => ({ ...e, location: relocate(at, e.location) })));
      const unique = errors.filter((e) => !seen.has(`${e.location}\u0000${e.message}`) && seen.add(`${e.location}\u0000${e.message}`));
      const known = new Set(context.environments ?? []);
      const unknownKeys = Object.keys(s.panelSamples ?? {}).filter((key) => !known.has(key)).map((key) => ({ location: `/panelSamples/${pointer(key)}`, message: `'${key}' is not an environment of this version (GET .../environments lists them)` }));
      const without = windowRequired && s.samples === undefined
        ? (s.environments ?? (s.panelSamples === undefined ? [...known] : [])).filter((key) => s.panelSamples?.[key] === undefined)
        : [];
      return [
        ...unique,
        ...environmentRules(s, context),
        ...unknownKeys,
        ...(without.length === 0 ? [] : [{ location: '/samples', message: `give samples (shared) or a window in panelSamples for every environment answered; none for ${without.slice(0, 5).join(', ')}${without.length > 5 ? ` and ${without.length - 5} more` : ''}` }]),
      ];
    },
    engine,
  });
}
