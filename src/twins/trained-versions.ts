/**
 * Versions as questions read them: the presented record, the parsed model and the environment profile, kept per
 * version while its revision stands. Every simulation submit and every run reads its version; parsing the record
 * and model again each time cost more than the rest of a small run. A read asks the store for the revision alone
 * (so a version retrained by another process is seen at once) and parses the row only when it changed.
 */
import { type EnvironmentProfile, environmentProfile } from './environments/profile.js';
import { presentVersion } from './records.js';
import type { TwinRepo } from './repo.js';
import type { TwinVersion } from '../../schemas/twins.js';

/** What a question reads of its version. Shared between callers: never modified. */
export interface QuestionVersion {
  record: TwinVersion;
  /** The fitted model (null until trained). */
  model: unknown;
  profile: EnvironmentProfile | null;
}

/** Versions kept parsed (the models of the most recently asked ones; a large model is a few MB). */
const KEPT = 32;

export class TrainedVersions {
  private readonly kept = new Map<string, { organisationId: string; revision: number; version: QuestionVersion }>();

  constructor(private readonly repo: TwinRepo) {}

  async get(organisationId: string, twinId: string, versionId: string): Promise<QuestionVersion | undefined> {
    const revision = await this.repo.versionRevision(organisationId, twinId, versionId);
    if (revision === undefined) return undefined;
    const hit = this.kept.get(versionId);
    if (hit !== undefined && hit.organisationId === organisationId && hit.revision === revision) {
      // Most recently used last.
      this.kept.delete(versionId);
      this.kept.set(versionId, hit);
      return hit.version;
    }
    const row = await this.repo.findVersion(organisationId, twinId, versionId);
    if (row === undefined) return undefined;
    const version = { record: presentVersion(row), model: row.model === null ? null : (JSON.parse(row.model) as unknown), profile: environmentProfile(row) };
    this.kept.delete(versionId);
    this.kept.set(versionId, { organisationId, revision: row.revision, version });
    if (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value!);
    return version;
  }
}
