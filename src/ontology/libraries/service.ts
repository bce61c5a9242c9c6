import type {
  InstallOntology,
  OntologyInstall,
  OntologyInstallDetail,
  OntologyInstallResult,
  OntologyLibrary,
  OntologyLibraryRead,
  OntologyLibrarySummary,
} from '../../../schemas/ontology-libraries.js';
import type { Principal } from '../../auth/principal.js';
import { AppError, notFound } from '../../errors.js';
import { nowIso } from '../../lib/ids.js';
import type { WorkspaceAccess } from '../../workspaces/access.js';
import { type ConceptBody, bodyOf, sourceIdsOf } from '../concepts.js';
import { type ConceptRepo, type ConceptRow, StaleConceptError } from '../repo.js';
import { detached, planInstall } from './install-plan.js';
import { type InstallEntry, type OntologyInstallRepo, type OntologyInstallRow, entriesOf } from './repo.js';
import { type LibraryRegistry, compareVersions, layerIdOf } from './registry.js';

/** What the installs need to know of the rest of the workspace: which concepts its datasets name. */
export interface LibraryNeighbours {
  datasets(organisationId: string, workspaceId: string): Promise<Array<{ id: string; conceptVersions: Record<string, number>; anchorConceptId: string | null }>>;
}

/** Attempts when the workspace's concepts change between the read and the write (the plan is made again). */
const WRITE_ATTEMPTS = 3;

const locatedError = (location: string, message: string) => new AppError('validation_failed', message, { errors: [{ location, message }] });

/** A concept of an install, and what an uninstall does to it. */
interface Fate {
  row: ConceptRow;
  body: ConceptBody;
  origin: InstallEntry['origin'];
  usedByDatasets: string[];
  mappedFields: number;
  deletable: boolean;
}

/**
 * Shared ontology libraries (GET /ontologies) and their installs in workspaces: an install makes each library
 * concept a workspace concept (created, or linked to the workspace's concept of that name) carrying `ontologyRef`
 * and the install's layer id; the concepts are then the workspace's, edited, locked and extracted onto like any other.
 */
export class OntologyLibraryService {
  constructor(
    private readonly registry: LibraryRegistry,
    private readonly installs: OntologyInstallRepo,
    private readonly concepts: ConceptRepo,
    private readonly access: WorkspaceAccess,
    private readonly neighbours: LibraryNeighbours,
    private readonly isUniqueViolation: (error: unknown) => boolean,
  ) {}

  libraries(): OntologyLibrarySummary[] {
    return this.registry.latest().map((library) => this.summary(library));
  }

  library(id: string, version?: string): OntologyLibraryRead {
    const library = this.registry.find(id, version);
    if (library === undefined) throw this.registry.versions(id).length === 0 ? notFound('Ontology library', id) : notFound(`Version of ontology library ${id}`, version!);
    return { ...this.summary(library), concepts: library.concepts };
  }

  /**
   * Installs a library version (the newest by default) into a workspace, or updates the install to a newer one;
   * installing the installed version again changes nothing. `isNew`: the library was not installed before.
   */
  async install(principal: Principal, workspaceId: string, input: InstallOntology): Promise<{ result: OntologyInstallResult; isNew: boolean }> {
    await this.access.require(principal, workspaceId, 'write');
    const library = this.resolve(input);
    const { organisationId } = principal;
    for (let attempt = 1; ; attempt += 1) {
      const record = await this.installs.find(organisationId, workspaceId, library.id);
      if (record !== undefined && compareVersions(library.version, record.ontology_version) < 0) {
        throw new AppError('conflict', `Version ${record.ontology_version} of ${library.id} is installed: an install is not moved back to an older version (uninstall it first)`);
      }
      const base = record === undefined ? null : (this.registry.find(library.id, record.ontology_version) ?? null);
      const now = nowIso();
      const plan = planInstall({
        library,
        base,
        rows: await this.concepts.all(organisationId, workspaceId),
        entries: record === undefined ? [] : entriesOf(record),
        owner: { organisationId, workspaceId },
        userId: principal.userId,
        now,
      });
      try {
        if (plan.updates.length + plan.inserts.length > 0) {
          await this.concepts.update(
            plan.updates.map(({ row, expectedVersion }) => ({ row, expectedVersion, sourceIds: sourceIdsOf(bodyOf(row)) })),
            plan.inserts.map((row) => ({ row, sourceIds: [] })),
          );
        }
      } catch (error) {
        // Someone edited or named a concept meanwhile: plan again on what is there now.
        if (!(error instanceof StaleConceptError || this.isUniqueViolation(error))) throw error;
        if (attempt >= WRITE_ATTEMPTS) throw new AppError('stale_version', 'The workspace\'s concepts kept changing during the install; install again');
        continue;
      }
      const entries = JSON.stringify(plan.entries);
      const unchanged = record !== undefined && record.ontology_version === library.version && record.concepts === entries && plan.updates.length + plan.inserts.length === 0;
      const saved = unchanged
        ? record
        : await this.installs.save({ organisation_id: organisationId, workspace_id: workspaceId, ontology_id: library.id, ontology_version: library.version, concepts: entries, installed_by: principal.userId, installed_at: now, updated_at: now });
      const install = this.present(saved, plan.entries.length);
      return { isNew: record === undefined, result: { install, previousVersion: record?.ontology_version ?? null, ...plan.outcome } };
    }
  }

  /** The libraries installed in a workspace. */
  async list(principal: Principal, workspaceId: string): Promise<OntologyInstall[]> {
    await this.access.require(principal, workspaceId, 'read');
    const [records, rows] = await Promise.all([this.installs.list(principal.organisationId, workspaceId), this.concepts.all(principal.organisationId, workspaceId)]);
    const counts = new Map<string, number>();
    for (const row of rows) {
      const id = bodyOf(row).ontologyRef?.ontologyId;
      if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return records.map((record) => this.present(record, counts.get(record.ontology_id) ?? 0));
  }

  /** One install with its concepts, and what an uninstall would do to each. */
  async get(principal: Principal, workspaceId: string, ontologyId: string): Promise<OntologyInstallDetail> {
    await this.access.require(principal, workspaceId, 'read');
    const record = await this.installs.find(principal.organisationId, workspaceId, ontologyId);
    if (record === undefined) throw notFound('Ontology install', ontologyId);
    const fates = await this.fates(principal.organisationId, workspaceId, ontologyId, entriesOf(record));
    return {
      ...this.present(record, fates.length),
      concepts: fates.map((f) => ({
        conceptId: f.row.id,
        name: f.row.name,
        canonicalId: f.body.ontologyRef!.canonicalId,
        origin: f.origin,
        mappedFields: f.mappedFields,
        usedByDatasets: f.usedByDatasets,
        onUninstall: f.deletable ? 'delete' : 'keep',
      })),
    };
  }

  /**
   * Removes an install (full permission): the concepts it created that nothing uses are deleted; the others stay as
   * workspace concepts, their ontologyRef cleared and the layer id removed (their editVersion moves).
   */
  async uninstall(principal: Principal, workspaceId: string, ontologyId: string): Promise<void> {
    await this.access.require(principal, workspaceId, 'full');
    const { organisationId } = principal;
    for (let attempt = 1; ; attempt += 1) {
      const record = await this.installs.find(organisationId, workspaceId, ontologyId);
      const fates = await this.fates(organisationId, workspaceId, ontologyId, record === undefined ? [] : entriesOf(record));
      // Concepts that refer to the library without a record (an install cut short) are removed the same way.
      if (record === undefined && fates.length === 0) throw notFound('Ontology install', ontologyId);
      const now = nowIso();
      const kept = fates.filter((f) => !f.deletable).map((f) => {
        const body: ConceptBody = { ...detached(f.body, ontologyId), lastEditedBy: principal.userId, lastEditedAt: now };
        return { row: { ...f.row, body: JSON.stringify(body), edit_version: f.row.edit_version + 1, updated_at: now }, expectedVersion: f.row.edit_version, sourceIds: sourceIdsOf(body) };
      });
      try {
        if (kept.length > 0) await this.concepts.update(kept);
        // A concept changed since it was read (a field mapped meanwhile) is not deleted: the plan is made again.
        for (const fate of fates.filter((f) => f.deletable)) {
          if (!(await this.concepts.delete(organisationId, workspaceId, fate.row.id, fate.row.edit_version))) throw new StaleConceptError(fate.row.id);
        }
      } catch (error) {
        if (!(error instanceof StaleConceptError)) throw error;
        if (attempt >= WRITE_ATTEMPTS) throw new AppError('stale_version', 'The install\'s concepts kept changing during the uninstall; try again');
        continue;
      }
      await this.installs.delete(organisationId, workspaceId, ontologyId);
      return;
    }
  }

  private resolve(input: InstallOntology): OntologyLibrary {
    const versions = this.registry.versions(input.ontologyId);
    if (versions.length === 0) throw locatedError('body/ontologyId', `${input.ontologyId} is not an ontology library of this service (GET /ontologies lists them)`);
    const library = this.registry.find(input.ontologyId, input.version);
    if (library === undefined) throw locatedError('body/version', `${input.ontologyId} has no version ${input.version}; its versions: ${versions.join(', ')}`);
    return library;
  }

  /**
   * The workspace's concepts that refer to the library. A concept the install created is deleted by an uninstall
   * when no dataset names it, it maps no field and no other concept links to it; a linked one (or one whose origin
   * is not recorded) is always kept.
   */
  private async fates(organisationId: string, workspaceId: string, ontologyId: string, entries: InstallEntry[]): Promise<Fate[]> {
    const [rows, datasets] = await Promise.all([this.concepts.all(organisationId, workspaceId), this.neighbours.datasets(organisationId, workspaceId)]);
    const usage = new Map<string, string[]>();
    for (const dataset of datasets) {
      const named = new Set([...Object.keys(dataset.conceptVersions), ...(dataset.anchorConceptId === null ? [] : [dataset.anchorConceptId])]);
      for (const id of named) usage.set(id, [...(usage.get(id) ?? []), dataset.id]);
    }
    const linkedTo = new Set<string>();
    for (const row of rows) {
      const body = bodyOf(row);
      for (const id of [...body.anchorConceptLinks.map((l) => l.anchorConceptId), ...body.temporalPrerequisites.map((t) => t.conceptId)]) if (id !== null && id !== row.id) linkedTo.add(id);
    }
    return rows.flatMap((row) => {
      const body = bodyOf(row);
      if (body.ontologyRef?.ontologyId !== ontologyId) return [];
      const origin = entries.find((e) => e.conceptId === row.id)?.origin ?? 'linked';
      const usedByDatasets = usage.get(row.id) ?? [];
      const mappedFields = body.fieldMappings.filter((m) => m.status !== 'rejected').length;
      return [{ row, body, origin, usedByDatasets, mappedFields, deletable: origin === 'created' && usedByDatasets.length === 0 && mappedFields === 0 && !linkedTo.has(row.id) }];
    });
  }

  private summary(library: OntologyLibrary): OntologyLibrarySummary {
    return { id: library.id, name: library.name, description: library.description, version: library.version, versions: this.registry.versions(library.id), conceptCount: library.concepts.length };
  }

  private present(record: OntologyInstallRow, conceptCount: number): OntologyInstall {
    const id = record.ontology_id;
    return {
      ontologyId: id,
      name: (this.registry.find(id, record.ontology_version) ?? this.registry.find(id))?.name ?? id,
      version: record.ontology_version,
      latestVersion: this.registry.versions(id)[0] ?? null,
      layerId: layerIdOf(id, record.ontology_version),
      conceptCount,
      installedBy: record.installed_by,
      installedAt: record.installed_at,
      updatedAt: record.updated_at,
    };
  }
}
