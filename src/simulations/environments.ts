/**
 * The environments a panel run answers in (spec "Scenario type values": every panel scenario takes `environments`;
 * the request's `environmentGroupIds` narrow it; names and groups together are intersected, never unioned; an
 * empty intersection answers 400), and the groups' snapshots frozen at submit (`environmentGroupSnapshots`:
 * editing or deleting a group later changes nothing in the run). Several groups select the union of their
 * environments. Single-environment twins ignore groups, unknown ids included.
 */
import type { EnvironmentGroup } from '../../schemas/environments.js';
import type { SimulationRunSummary } from '../../schemas/simulations.js';
import { AppError } from '../errors.js';
import { matchEnvironments } from '../twins/environments/match.js';
import type { EnvironmentProfile } from '../twins/environments/profile.js';

export type GroupSnapshot = SimulationRunSummary['environmentGroupSnapshots'][number];

export interface RunEnvironments {
  /** Absent: every environment of the version (or those the scenario names). */
  environments?: string[];
  snapshots: GroupSnapshot[];
}

export function runEnvironments(named: readonly string[] | undefined, groupIds: readonly string[] | undefined, groups: readonly EnvironmentGroup[], profile: EnvironmentProfile | null, versionKeys: readonly string[], versionLabel: string): RunEnvironments {
  if (groupIds === undefined || groupIds.length === 0) return { ...(named === undefined ? {} : { environments: [...named] }), snapshots: [] };
  const honoured = new Set(versionKeys);
  const snapshots = groupIds.map((id, i): GroupSnapshot => {
    const group = groups.find((g) => g.id === id);
    if (group === undefined) throw new AppError('validation_failed', `environmentGroupIds/${i}: ${id} is not an environment group of this twin`, { errors: [{ location: `body/environmentGroupIds/${i}`, message: `${id} is not an environment group of this twin` }] });
    const { matched, unknown } = profile === null ? { matched: [], unknown: [] } : matchEnvironments(group.definition, profile);
    const envKeys = matched.map((e) => e.key).filter((key) => honoured.has(key));
    const droppedEnvKeys = [...unknown, ...matched.map((e) => e.key).filter((key) => !honoured.has(key))];
    const notice = envKeys.length === 0
      ? `The group selects no environment of version ${versionLabel}`
      : droppedEnvKeys.length > 0 ? `${droppedEnvKeys.length} member${droppedEnvKeys.length === 1 ? '' : 's'} of the group are not environments of version ${versionLabel}` : undefined;
    return { id: group.id, name: group.name, envKeys, droppedEnvKeys, ...(notice === undefined ? {} : { notice }) };
  });
  const selected = new Set(snapshots.flatMap((s) => s.envKeys));
  const environments = versionKeys.filter((key) => selected.has(key) && (named === undefined || named.includes(key)));
  if (environments.length === 0) {
    throw new AppError('invalid_request', named === undefined
      ? `The environment groups select no environment of version ${versionLabel}`
      : 'The scenario\'s environments and the environment groups have no environment in common (names and groups are intersected, never unioned)');
  }
  return { environments, snapshots };
}
