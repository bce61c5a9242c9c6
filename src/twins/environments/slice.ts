/**
 * A graph slice: the version's graph as it holds across a selection of environments. Each edge's per-environment
 * evidence (profile.ts `edges`, from learning's per-environment judgement) is read over the selected environments
 * with evidence; an edge is kept when it holds in at least `agreementThreshold` of them.
 */
import type { GraphSliceResult } from '../../../schemas/environments.js';
import type { TwinVersion } from '../../../schemas/twins.js';
import type { EnvironmentEntry, EnvironmentProfile } from './profile.js';

export function sliceGraph(version: TwinVersion, profile: EnvironmentProfile, selected: readonly EnvironmentEntry[], threshold: number): Omit<GraphSliceResult, 'envKeys'> & { envKeys: string[] } {
  const withEvidence = new Set(selected.filter((e) => e.hasEvidence).map((e) => e.key));
  const positions = profile.environments.flatMap((e, i) => (withEvidence.has(e.key) ? [i] : []));
  const evidence = new Map(profile.edges.map((e) => [`${e.source}\u0000${e.target}`, e]));
  const causalGraph = version.causalGraph.flatMap((edge) => {
    const found = evidence.get(`${edge.source}\u0000${edge.target}`);
    const judged = found === undefined ? [] : positions.filter((i) => found.holds[i] !== null);
    const holding = judged.filter((i) => found!.holds[i] === true);
    // Not judged per environment (an edge into a categorical variable): the version's agreement stands.
    const agreementRate = judged.length > 0 ? holding.length / judged.length : (edge.agreementRate ?? 1);
    if (agreementRate < threshold) return [];
    const weight = holding.reduce((s, i) => s + profile.environments[i]!.nRows, 0);
    const strength = holding.length > 0 && weight > 0 ? holding.reduce((s, i) => s + (found!.strength[i] ?? 0) * profile.environments[i]!.nRows, 0) / weight : edge.strength;
    return [{
      source: edge.source,
      target: edge.target,
      orientation: edge.orientation,
      strength: strength === null ? null : Number(strength.toFixed(6)),
      agreementRate: Number(agreementRate.toFixed(4)),
      isEnvironmentGated: judged.length > 0 ? holding.length > 0 && holding.length < judged.length : edge.isEnvironmentGated,
      environmentsHolding: judged.length > 0 ? holding.length : positions.length,
    }];
  });
  return {
    causalGraph,
    nodes: version.nodes as unknown as Array<Record<string, unknown>>,
    envCount: positions.length,
    envKeys: positions.map((i) => profile.environments[i]!.key),
    sampleSize: positions.reduce((s, i) => s + profile.environments[i]!.nRows, 0),
    totalEnvCount: profile.environments.length,
    agreementThreshold: threshold,
  };
}
