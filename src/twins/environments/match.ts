/**
 * Which environments of a version an environment group's definition selects, and whether a definition fits a
 * twin. Pure (no store, no HTTP): resolve, graph slices and the simulations' frozen group snapshots all use it.
 */
import type { EnvironmentGroupDefinition, StatFilter } from '../../../schemas/environments.js';
import type { FieldError } from '../../errors.js';
import { environmentKey } from '../../engine/panel/keys.js';
import type { EnvironmentEntry, EnvironmentProfile } from './profile.js';

export interface EnvironmentMatch {
  /** The profile's entries the definition selects, in the profile's order. */
  matched: EnvironmentEntry[];
  /**
   * Mode `environments`: the definition's items that select no environment, each in key form over the columns it
   * names (in the profile's column order, then any others); empty for the other modes.
   */
  unknown: string[];
}

/** A definition's value as the text it is compared as: numbers in their shortest form (12, 0.5). */
export const cellText = (value: string | number): string => (typeof value === 'number' ? String(value) : value);

/** The environments of `profile` that `definition` selects. Values are compared as text. */
export function matchEnvironments(definition: EnvironmentGroupDefinition, profile: EnvironmentProfile): EnvironmentMatch {
  switch (definition.mode) {
    case 'columnValues': {
      const allowed = Object.entries(definition.columnValues ?? {}).map(([column, values]) => [column, new Set(values.map(cellText))] as const);
      return { matched: profile.environments.filter((entry) => allowed.every(([column, values]) => hasValue(entry, column) && values.has(entry.values[column]!))), unknown: [] };
    }
    case 'environments': {
      const items = (definition.environments ?? []).map((item) => Object.entries(item).map(([column, value]) => [column, cellText(value)] as const));
      const selects = (entry: EnvironmentEntry, item: ReadonlyArray<readonly [string, string]>) => item.every(([column, value]) => hasValue(entry, column) && entry.values[column] === value);
      const matched = profile.environments.filter((entry) => items.some((item) => selects(entry, item)));
      const unknown = items.filter((item) => !matched.some((entry) => selects(entry, item))).map((item) => partialKey(profile.columns, item));
      return { matched, unknown };
    }
    case 'statFilters': {
      const filters = definition.statFilters ?? [];
      return { matched: profile.environments.filter((entry) => filters.every((filter) => meetsStatFilter(entry, filter))), unknown: [] };
    }
  }
}

/** Whether `entry` meets one filter; a statistic the entry does not have (null, or an unknown variable) meets none. */
export function meetsStatFilter(entry: EnvironmentEntry, filter: StatFilter): boolean {
  const actual = filter.stat === 'rows' ? entry.nRows : filter.variable === undefined ? null : (entry.stats[filter.variable]?.[filter.stat] ?? null);
  if (actual === null || !Number.isFinite(actual)) return false;
  switch (filter.op) {
    case 'lt': return actual < filter.value;
    case 'lte': return actual <= filter.value;
    case 'gt': return actual > filter.value;
    case 'gte': return actual >= filter.value;
    case 'eq': return actual === filter.value;
    case 'ne': return actual !== filter.value;
  }
}

/** What a definition is checked against: the twin's environment columns and the modelled variables (null: not known yet). */
export interface DefinitionContext {
  environmentColumns: readonly string[];
  /** The version's (or twin's) canonicalInputSchema entries; null or empty when the twin has no data bound yet. */
  variables: ReadonlyArray<{ field: string; type: string }> | null;
}

const MODE_MEMBERS = { environments: 'environments', columnValues: 'columnValues', statFilters: 'statFilters' } as const;
/** Types the learner models as states: their mean, std, min and max are null in a profile. */
const CATEGORICAL_TYPES = new Set(['categorical', 'boolean']);

/**
 * The definition's errors against a twin, located under `at` (e.g. `body/definition`): the member its mode names
 * is required and the other modes' members are refused; columns must be environment columns; a statFilter names
 * a modelled variable (unless it filters `rows`), and a categorical one only for `missing`. Empty when it fits.
 */
export function definitionErrors(definition: EnvironmentGroupDefinition, twin: DefinitionContext, at: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [mode, member] of Object.entries(MODE_MEMBERS)) {
    const present = definition[member] !== undefined;
    if (mode === definition.mode && !present) errors.push({ location: `${at}/${member}`, message: `required when mode is ${mode}` });
    if (mode !== definition.mode && present) errors.push({ location: `${at}/${member}`, message: `only with mode ${mode} (mode is ${definition.mode})` });
  }
  const columns = new Set(twin.environmentColumns);
  const known = `the twin's environment columns are ${twin.environmentColumns.join(', ')}`;
  if (definition.mode === 'columnValues') {
    for (const column of Object.keys(definition.columnValues ?? {})) {
      if (!columns.has(column)) errors.push({ location: `${at}/columnValues/${pointer(column)}`, message: `${column} is not an environment column; ${known}` });
    }
  }
  if (definition.mode === 'environments') {
    (definition.environments ?? []).forEach((item, i) => {
      for (const column of Object.keys(item)) {
        if (!columns.has(column)) errors.push({ location: `${at}/environments/${i}/${pointer(column)}`, message: `${column} is not an environment column; ${known}` });
      }
    });
  }
  if (definition.mode === 'statFilters') {
    const variables = twin.variables === null || twin.variables.length === 0 ? null : new Map(twin.variables.map((v) => [v.field, v.type]));
    (definition.statFilters ?? []).forEach((filter, i) => {
      const location = `${at}/statFilters/${i}/variable`;
      if (filter.stat === 'rows') {
        if (filter.variable !== undefined) errors.push({ location, message: 'omit variable for stat rows (the environment\'s row count)' });
        return;
      }
      if (filter.variable === undefined) {
        errors.push({ location, message: `required for stat ${filter.stat}` });
        return;
      }
      if (variables === null) return;
      const type = variables.get(filter.variable);
      if (type === undefined) errors.push({ location, message: `${filter.variable} is not a modelled variable of the twin` });
      else if (CATEGORICAL_TYPES.has(type) && filter.stat !== 'missing') errors.push({ location, message: `${filter.variable} is ${type}: only stat missing applies to it` });
    });
  }
  return errors;
}

const hasValue = (entry: EnvironmentEntry, column: string) => Object.hasOwn(entry.values, column);

/** Key form of a partial item: its columns in the profile's order, then any the profile does not have. */
function partialKey(columns: readonly string[], item: ReadonlyArray<readonly [string, string]>): string {
  const values = Object.fromEntries(item);
  const named = [...columns.filter((column) => Object.hasOwn(values, column)), ...item.map(([column]) => column).filter((column) => !columns.includes(column))];
  return environmentKey(named, values);
}

/** A member name as a JSON pointer segment (RFC 6901). */
const pointer = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');
