/**
 * How a static twin learns: the modelled columns as a frame; discovery (PC-stable and refinement on the pool,
 * bootstrap resamples in parallel for confidence); the CBN fitted and evaluated on a held-out split.
 */
import { createHash } from 'node:crypto';
import type { Relationship, TwinVersion } from '../../../../schemas/twins.js';
import { kindEngineRef } from '../../../compute/kind-engine.js';
import { edgeConfidence } from '../../../engine/discovery/bootstrap.js';
import type { DiscoveryOptions, Frame } from '../../../engine/types.js';
import { nowIso } from '../../../lib/ids.js';
import { buildChangelog } from '../../changelog.js';
import { buildFrame, modelledColumns } from '../../frame.js';
import { describeNodes, variableRoles, withFittedStrengths } from '../../model-summary.js';
import { reversibleEdgeCount, withOrientations } from '../../orientation.js';
import type { KindLearner, LearnIo, Learned } from '../kind.js';
import type staticEngine from './engine.js';
import { LEARN_DEFAULTS, discoverySetup, nodeRecords, rowBudget, trainingEdges, withResamples } from '../shared.js';

const ENGINE = kindEngineRef<typeof staticEngine>(new URL('./engine.js', import.meta.url).href);

export const staticLearner: KindLearner<Frame> = {
  async read(twin, schema, rows) {
    const excluded = [...twin.environmentColumns, ...(twin.selectedTimeColumnName === null ? [] : [twin.selectedTimeColumnName])];
    const columns = modelledColumns(schema, excluded);
    const { frame, dropped, signature } = await buildFrame(await rows(columns.map((c) => c.field), rowBudget(columns.length)), columns);
    const kept = new Set(frame.columns.map((c) => c.name));
    return { data: frame, nRows: frame.nRows, variables: frame.columns.length, dropped, signature, columns: columns.filter((c) => kept.has(c.field)) };
  },
  discover,
  train,
};

async function discover(io: LearnIo, frame: Frame, version: TwinVersion, share: number): Promise<Learned> {
  const { params, signal } = io.context;
  const { bootstrapSamples, seed, options: base, summary } = discoverySetup(params, version, new Set(frame.columns.map((c) => c.name)));
  const assumptions = params.orientationAssumptions ?? LEARN_DEFAULTS.orientationAssumptions;
  const options: DiscoveryOptions = { ...base, assumptions };
  const started = Date.now();
  const [result, boots] = await withResamples(
    io, share, 'discovering graph', bootstrapSamples,
    (onProgress) => io.compute().step(ENGINE, 'discover', { frame, options }, { signal, onProgress }),
    (i) => io.compute().step(ENGINE, 'bootstrap', { frame, options, seed: seed * 1000 + i + 1 }, { signal }),
  );
  const confidence = bootstrapSamples === 0 ? null : edgeConfidence(boots, result.edges);
  const causalGraph: Relationship[] = withOrientations(
    result.edges.map((edge, i) => ({
      source: edge.source,
      target: edge.target,
      strength: Number(edge.strength.toFixed(6)),
      strengthStatus: 'measured',
      timeLagEffects: [],
      cyclicalEffects: [],
      confidence: confidence === null ? null : Number((confidence[i] ?? 0).toFixed(4)),
      agreementRate: null,
      isEnvironmentGated: false,
    })),
    version.fixedSubGraph,
    { assumed: result.assumed ?? [], copies: result.copies ?? [] },
  );
  return {
    status: 'discovered',
    causalGraph,
    reversibleEdgeCount: reversibleEdgeCount(causalGraph),
    nodes: nodeRecords(frame.columns),
    variableRoles: variableRoles(frame.columns.map((c) => c.name), causalGraph),
    discovery: summary(result.stats, started, frame.nRows, { orientationAssumptions: assumptions, ...(result.copies === undefined ? {} : { copies: result.copies }) }),
    discoveredAt: nowIso(),
  };
}

async function train(io: LearnIo, frame: Frame, version: TwinVersion): Promise<Learned & { model: string }> {
  const { params, signal } = io.context;
  const edges = trainingEdges(version, new Set(frame.columns.map((c) => c.name)));
  const nonlinear = params.nonlinear === true;
  const testFraction = params.testFraction ?? LEARN_DEFAULTS.testFraction;
  const seed = params.seed ?? LEARN_DEFAULTS.seed;
  io.context.progress(0.7, 'fitting the model');
  const outcome = await io.compute().step(ENGINE, 'fit', { frame, edges, options: { nonlinear, testFraction, seed } }, { signal });
  const known = new Map(version.causalGraph.map((edge) => [`${edge.source}\u0000${edge.target}`, edge]));
  const graph = edges.map(
    (edge): Omit<Relationship, 'orientation'> =>
      known.get(`${edge.source}\u0000${edge.target}`) ?? {
        ...edge,
        strength: null,
        strengthStatus: 'pinned',
        timeLagEffects: [],
        cyclicalEffects: [],
        confidence: null,
        agreementRate: null,
        isEnvironmentGated: false,
      },
  );
  const causalGraph = withOrientations(withFittedStrengths(graph, outcome.model), version.fixedSubGraph, { copies: version.discovery?.copies });
  const nodes = describeNodes(outcome.model);
  const evaluation = { ...outcome.evaluation, nodeMetrics: outcome.evaluation.nodeMetrics as Record<string, Record<string, number>> };
  return {
    status: 'trained',
    causalGraph,
    reversibleEdgeCount: reversibleEdgeCount(causalGraph),
    nodes,
    evaluation,
    variableRoles: variableRoles(frame.columns.map((c) => c.name), causalGraph),
    nTrainSamples: frame.nRows,
    configSignature: `sha256:${createHash('sha256').update(JSON.stringify({ fixed: version.fixedSubGraph, nonlinear, testFraction, seed })).digest('hex')}`,
    changelog: buildChangelog(await io.baseVersion(version), { fixedSubGraph: version.fixedSubGraph, causalGraph, nodes, evaluation }),
    trainedAt: nowIso(),
    model: JSON.stringify(outcome.model),
  };
}
