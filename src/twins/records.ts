import type { EnvironmentGroup } from '../../schemas/environments.js';
import type { DigitalTwin, FixedSubGraph, TwinType, TwinVersion } from '../../schemas/twins.js';
import type { InferredColumn } from '../tables/inference/infer-schema.js';
import { withIdentification } from './orientation.js';
import type { TwinRow, VersionRow } from './repo.js';

/** The twin members kept in the `record` JSON column. */
export interface TwinRecord {
  tags: string[];
  canonicalInputSchema: InferredColumn[];
  suggestedSimulations: DigitalTwin['suggestedSimulations'];
  suggestionsGeneratedAt: string | null;
  environmentGroups: EnvironmentGroup[];
  autoUpdate: { enabled: boolean; mode: string };
  datasetId: string | null;
  sourceId: string | null;
  selectedTimeColumnName: string | null;
  environmentColumns: string[];
  shardCount: number;
  /** How a multi-environment temporal twin puts finer environments on the coarsest step (absent on older twins). */
  stepAggregation?: DigitalTwin['stepAggregation'];
  latestVersionId: string;
}

export function presentTwin(row: TwinRow): DigitalTwin {
  const record = JSON.parse(row.record) as TwinRecord;
  return {
    id: row.id,
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    name: row.name,
    normalizedName: row.normalized_name,
    type: row.type as TwinType,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...record,
  };
}

/** The stored version record is the public one. */
export function presentVersion(row: VersionRow): TwinVersion {
  // A panel's environment profile stays on the stored record (environments/profile.ts reads it).
  const { environmentProfile: _profile, ...version } = JSON.parse(row.record) as TwinVersion & { environmentProfile?: unknown };
  return withIdentification(version);
}

const versionLabel = (major: number, minor: number, patch: number) => `${major}.${minor}.${patch}`;

/** A version with nothing learned yet. */
export function emptyVersion(input: {
  id: string;
  twin: TwinRow;
  number: [number, number, number];
  createdBy: string;
  derivedFromVersionId: string | null;
  datasetId: string | null;
  sourceId: string | null;
  canonicalInputSchema: InferredColumn[];
  fixedSubGraph: FixedSubGraph;
  now: string;
}): TwinVersion {
  const [major, minor, patch] = input.number;
  return {
    id: input.id,
    twinId: input.twin.id,
    organisationId: input.twin.organisation_id,
    workspaceId: input.twin.workspace_id,
    versionMajor: major,
    versionMinor: minor,
    versionPatch: patch,
    version: versionLabel(major, minor, patch),
    status: 'untrained',
    createdAt: input.now,
    createdBy: input.createdBy,
    derivedFromVersionId: input.derivedFromVersionId,
    changelog: { temporalDependenciesDiffs: [], fixedSubGraphDiffs: [], causalGraphDiffs: [], nodesDiffs: [], evaluationDiffs: [] },
    datasetId: input.datasetId,
    sourceId: input.sourceId,
    type: input.twin.type as TwinType,
    inputFields: input.canonicalInputSchema.map((column) => column.field),
    canonicalInputSchema: input.canonicalInputSchema,
    temporalDependencies: null,
    timeSeriesMetadata: null,
    granularity: null,
    fixedSubGraph: input.fixedSubGraph,
    variableRoles: { sources: [], targets: [] },
    derivedColumns: [],
    dataSignature: null,
    configSignature: null,
    nTrainSamples: null,
    causalGraph: [],
    reversibleEdgeCount: 0,
    nodes: [],
    evaluation: null,
    panelEvaluation: null,
    discovery: null,
    discoveredAt: null,
    trainedAt: null,
  };
}
