/**
 * How a multi-environment (panel) static twin learns. Reading: each row's environment is the combination of its
 * environment column values (profile.ts for the key's string form); rows without one are left out and counted.
 * Discovery: the pooled graph by CD-NOD on the pool (engine/panel/discover.ts), confidence from half-sample
 * rediscoveries, then each edge judged per environment from per-environment sufficient statistics gathered in
 * `shardCount` shards (agreement and gating, engine/panel/evidence.ts). Training: the pooled network, each
 * environment's mechanisms partially pooled (engine/panel/pooling.ts), the edges judged again on the final graph,
 * and the panel evaluation.
 */
import { createHash } from 'node:crypto';
import type { Relationship, TwinVersion } from '../../../../schemas/twins.js';
import { kindEngineRef } from '../../../compute/kind-engine.js';
import { edgeConfidence } from '../../../engine/discovery/bootstrap.js';
import { judgeEdges } from '../../../engine/panel/evidence.js';
import { assemblePanel, type ShardStatistics, statisticsPlan } from '../../../engine/panel/fit.js';
import type { CategoricalColumn, Frame } from '../../../engine/types.js';
import { nowIso } from '../../../lib/ids.js';
import { buildChangelog } from '../../changelog.js';
import type { EnvironmentProfile } from '../../environments/profile.js';
import { buildFrame, modelledColumns } from '../../frame.js';
import { describeNodes, variableRoles, withFittedStrengths } from '../../model-summary.js';
import { reversibleEdgeCount, withOrientations } from '../../orientation.js';
import type { KindLearner, LearnIo, Learned } from '../kind.js';
import { LEARN_DEFAULTS, discoverySetup, nodeRecords, rowBudget, trainingEdges, withResamples } from '../shared.js';
import type panelEngine from './engine.js';
import { countNodesOf, entry, evidenceOf, familiesOf, familyCounts, labelRows, momentsByEnvironment, panelMembers, shardGroups, withCountNodes, withEnvironmentColumns } from './shared.js';

const ENGINE = kindEngineRef<typeof panelEngine>(new URL('./engine.js', import.meta.url).href);

export interface PanelData {
  /** The modelled columns. */
  frame: Frame;
  /** Each row's environment (index into `keys`), on shared memory. */
  environment: Int32Array;
  keys: string[];
  environmentColumns: string[];
  profile: EnvironmentProfile;
  shardCount: number;
}

export const panelLearner: KindLearner<PanelData> = {
  async read(twin, schema, rows) {
    const environmentColumns = twin.environmentColumns;
    const excluded = [...environmentColumns, ...(twin.selectedTimeColumnName === null ? [] : [twin.selectedTimeColumnName])];
    const columns = modelledColumns(schema, excluded);
    const all = await rows([...columns.map((c) => c.field), ...environmentColumns], rowBudget(columns.length + environmentColumns.length));
    const { labelled, keys, valuesOf, environment } = labelRows(all, environmentColumns);
    const { frame, dropped, signature } = await buildFrame(labelled, columns);
    const profile: EnvironmentProfile = {
      columns: environmentColumns,
      environments: keys.map((key, e) => entry(frame, environment, e, key, valuesOf.get(key)!)),
      rowsWithoutEnvironment: all.length - labelled.length,
      edges: [],
    };
    const kept = new Set(frame.columns.map((c) => c.name));
    return {
      data: { frame, environment, keys, environmentColumns, profile, shardCount: twin.shardCount },
      nRows: frame.nRows,
      variables: frame.columns.length,
      dropped,
      signature,
      columns: columns.filter((c) => kept.has(c.field)),
      recorded: { environmentProfile: profile },
    };
  },
  discover,
  train,
};

async function discover(io: LearnIo, data: PanelData, version: TwinVersion, share: number): Promise<Learned> {
  const { params, signal } = io.context;
  const { frame } = data;
  const names = new Set(frame.columns.map((c) => c.name));
  const { alpha, bootstrapSamples, seed, options, summary } = discoverySetup(params, version, names);
  const indicator = indicatorName(names);
  const withIndicator: Frame = { nRows: frame.nRows, columns: [...frame.columns, { name: indicator, kind: 'categorical', codes: data.environment, categories: data.keys } satisfies CategoricalColumn] };
  const started = Date.now();
  const [result, boots] = await withResamples(
    io, share * 0.9, 'discovering the pooled graph', bootstrapSamples,
    (onProgress) => io.compute().step(ENGINE, 'discover', { frame: withIndicator, indicator, options }, { signal, onProgress }),
    (i) => io.compute().step(ENGINE, 'bootstrap', { frame: withIndicator, indicator, options, seed: seed * 1000 + i + 1 }, { signal }),
  );
  const confidence = bootstrapSamples === 0 ? null : edgeConfidence(boots, result.edges);
  io.context.progress(0.05 + share * 0.92, 'judging edges per environment');
  const families = familiesOf(frame, result.edges);
  const cpts = countNodesOf(frame, result.edges);
  const shards = await statisticsShards(io, data, { families, cpts });
  const judgements = judgeEdges(result.edges, families, momentsByEnvironment(data.keys.length, shards), alpha, familyCounts(cpts, data.keys.length, shards));
  const causalGraph: Relationship[] = result.edges.map((edge, i) => ({
    source: edge.source,
    target: edge.target,
    orientation: result.orientations[i]!,
    strength: Number(edge.strength.toFixed(6)),
    strengthStatus: 'measured',
    timeLagEffects: [],
    cyclicalEffects: [],
    confidence: confidence === null ? null : Number((confidence[i] ?? 0).toFixed(4)),
    ...panelMembers(judgements[i]!),
  }));
  return {
    status: 'discovered',
    causalGraph,
    reversibleEdgeCount: reversibleEdgeCount(causalGraph),
    nodes: withEnvironmentColumns(nodeRecords(frame.columns), new Set(result.changing), judgements, data.environmentColumns),
    variableRoles: variableRoles(frame.columns.map((c) => c.name), causalGraph),
    environmentProfile: { ...data.profile, edges: evidenceOf(judgements) },
    discovery: summary(result.stats, started, frame.nRows),
    discoveredAt: nowIso(),
  };
}

async function train(io: LearnIo, data: PanelData, version: TwinVersion): Promise<Learned & { model: string }> {
  const { params, signal } = io.context;
  const { frame } = data;
  const edges = trainingEdges(version, new Set(frame.columns.map((c) => c.name)));
  const testFraction = params.testFraction ?? LEARN_DEFAULTS.testFraction;
  const seed = params.seed ?? LEARN_DEFAULTS.seed;
  const alpha = version.discovery?.alpha ?? params.alpha ?? LEARN_DEFAULTS.alpha;
  io.context.progress(0.7, 'fitting the pooled model');
  const evaluated = io.compute().step(ENGINE, 'evaluate', { frame, environment: data.environment, keys: data.keys, edges, testFraction, seed }, { signal });
  const pooled = await io.compute().step(ENGINE, 'pooled', { frame, edges, testFraction, seed }, { signal });
  io.context.progress(0.8, 'per-environment statistics');
  const plan = withCountNodes(statisticsPlan(pooled.model), countNodesOf(frame, edges));
  const shards = await statisticsShards(io, data, plan);
  const panel = assemblePanel(pooled.model, data.environmentColumns, data.keys, data.profile.environments.map((e) => e.nRows), shards);
  const judgements = judgeEdges(edges, plan.families, momentsByEnvironment(data.keys.length, shards), alpha, familyCounts(plan.cpts, data.keys.length, shards));
  const judged = new Map(judgements.map((j) => [`${j.source}\u0000${j.target}`, j]));
  const known = new Map(version.causalGraph.map((edge) => [`${edge.source}\u0000${edge.target}`, edge]));
  const graph = edges.map((edge): Relationship => {
    const before = known.get(`${edge.source}\u0000${edge.target}`);
    const judgement = panelMembers(judged.get(`${edge.source}\u0000${edge.target}`)!);
    return before === undefined
      ? { ...edge, orientation: 'fixed', strength: null, strengthStatus: 'pinned', timeLagEffects: [], cyclicalEffects: [], confidence: null, ...judgement }
      : { ...before, ...judgement };
  });
  // Discovery's orientations count the environment indicator as data; a graph trained without one is derived here.
  const oriented = version.discoveredAt === null ? withOrientations(graph, version.fixedSubGraph) : graph;
  const causalGraph = withFittedStrengths(oriented, pooled.model) as Relationship[];
  const changing = new Set(version.nodes.filter((n) => n.environmentColumns.length > 0).map((n) => n.name));
  const nodes = withEnvironmentColumns(describeNodes(pooled.model), changing, judgements, data.environmentColumns);
  const evaluation = { ...pooled.evaluation, nodeMetrics: pooled.evaluation.nodeMetrics as Record<string, Record<string, number>> };
  const panelEvaluation = await evaluated;
  return {
    status: 'trained',
    causalGraph,
    reversibleEdgeCount: reversibleEdgeCount(causalGraph),
    nodes,
    evaluation,
    panelEvaluation: panelEvaluation as unknown as Record<string, unknown>,
    environmentProfile: { ...data.profile, edges: evidenceOf(judgements) },
    variableRoles: variableRoles(frame.columns.map((c) => c.name), causalGraph),
    nTrainSamples: frame.nRows,
    configSignature: `sha256:${createHash('sha256').update(JSON.stringify({ fixed: version.fixedSubGraph, testFraction, seed, environments: data.environmentColumns })).digest('hex')}`,
    changelog: buildChangelog(await io.baseVersion(version), { fixedSubGraph: version.fixedSubGraph, causalGraph, nodes, evaluation }),
    trainedAt: nowIso(),
    model: JSON.stringify(panel),
  };
}

/** A name for the environment indicator no column has. */
function indicatorName(names: ReadonlySet<string>): string {
  let name = '(environment)';
  while (names.has(name)) name = `(${name})`;
  return name;
}

/** Environments split into `shardCount` groups of about equal rows, each gathered by one pool task. */
async function statisticsShards(io: LearnIo, data: PanelData, plan: ReturnType<typeof statisticsPlan>): Promise<ShardStatistics[]> {
  return Promise.all(shardGroups(data.profile.environments.map((e) => e.nRows), data.shardCount).map((environments) =>
    io.compute().step(ENGINE, 'statistics', { frame: data.frame, environment: data.environment, environments, plan }, { signal: io.context.signal })));
}
