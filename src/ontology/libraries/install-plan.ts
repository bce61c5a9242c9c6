/**
 * What installing one library version into a workspace writes (pure: the service reads, plans, then writes at the
 * edit versions read). Each library concept is the workspace concept already installed from it (by
 * `ontologyRef.canonicalId`), else the workspace's concept of the same name without an ontologyRef (linked), else
 * a new concept. Concepts of an earlier version that this one no longer has are detached.
 */
import type { LibraryConcept, OntologyLibrary, OntologyInstallResult } from '../../../schemas/ontology-libraries.js';
import { AppError } from '../../errors.js';
import { type ConceptBody, bodyOf, newBody, newConceptRow } from '../concepts.js';
import type { ConceptRow } from '../repo.js';
import type { InstallEntry } from './repo.js';
import { mergeMetadata, mergeTags, mergeValueMappings, sameTags, sameValueMappings } from './members.js';
import { isLayerOf, layerIdOf } from './registry.js';

/** Curated by the library's publisher: the highest trust tier. */
export const LIBRARY_TRUST_TIER = 'certified';

/** The members a library owns on the concepts it created (each also lockable by a person). */
const OWNED = ['description', 'conceptClassification', 'conceptKind', 'schemaFieldName', 'schemaType', 'schemaSubtype', 'suggestedRole', 'trustTier'] as const;

export interface InstallPlan {
  inserts: ConceptRow[];
  updates: Array<{ row: ConceptRow; expectedVersion: number }>;
  entries: InstallEntry[];
  outcome: Omit<OntologyInstallResult, 'install' | 'previousVersion'>;
}

interface PlanInput {
  library: OntologyLibrary;
  /** The version installed before (what the concepts were given), or null. */
  base: OntologyLibrary | null;
  rows: ConceptRow[];
  entries: InstallEntry[];
  owner: { organisationId: string; workspaceId: string };
  userId: string;
  now: string;
}

export function planInstall({ library, base, rows, entries, owner, userId, now }: PlanInput): InstallPlan {
  const ref = (canonicalId: string) => ({ ontologyId: library.id, ontologyVersion: library.version, canonicalId, installScope: 'workspace' });
  const layer = layerIdOf(library.id, library.version);
  const layers = (body: ConceptBody) => [...body.layerIds.filter((id) => !isLayerOf(library.id)(id)), layer];
  const installedFrom = (row: ConceptRow) => bodyOf(row).ontologyRef?.ontologyId === library.id;
  const names = new Map(rows.map((row) => [row.name_key, row]));
  const plan: InstallPlan = { inserts: [], updates: [], entries: [], outcome: { created: [], linked: [], updated: [], unchanged: [], detached: [] } };
  const touch = (row: ConceptRow, body: ConceptBody, meaningChanged: boolean, name = row.name) => {
    // A version that changes nothing a concept means moves its ontologyRef and layer id without a new editVersion.
    const next = { ...row, name, name_key: name.toLowerCase(), body: JSON.stringify(meaningChanged ? { ...body, lastEditedBy: userId, lastEditedAt: now } : body), edit_version: row.edit_version + (meaningChanged ? 1 : 0), updated_at: now };
    if (next.body !== row.body || name !== row.name) plan.updates.push({ row: next, expectedVersion: row.edit_version });
    return next;
  };

  for (const concept of library.concepts) {
    const before = base?.concepts.find((c) => c.canonicalId === concept.canonicalId);
    const installed = rows.find((row) => installedFrom(row) && bodyOf(row).ontologyRef!.canonicalId === concept.canonicalId);
    if (installed !== undefined) {
      const origin = entries.find((e) => e.conceptId === installed.id)?.origin ?? 'linked';
      const { body, name, changed, kept } = origin === 'created' ? updateCreated(installed, concept, before, names) : updateLinked(bodyOf(installed), concept, before);
      const row = touch(installed, { ...body, ontologyRef: ref(concept.canonicalId), layerIds: layers(body) }, changed.length > 0, name);
      const summary = { conceptId: row.id, name: row.name, canonicalId: concept.canonicalId };
      if (changed.length > 0) plan.outcome.updated.push({ ...summary, changed, kept });
      else plan.outcome.unchanged.push({ ...summary, kept });
      plan.entries.push({ canonicalId: concept.canonicalId, conceptId: row.id, origin });
      continue;
    }
    const namesake = names.get(concept.name.toLowerCase());
    if (namesake !== undefined) {
      const claimed = bodyOf(namesake).ontologyRef;
      if (claimed !== null) {
        throw new AppError('conflict', `The workspace's concept "${namesake.name}" (${namesake.id}) stands for ${claimed.canonicalId} of ${claimed.ontologyId}; rename it, or uninstall ${claimed.ontologyId}, to install ${library.id}`);
      }
      const { body } = updateLinked(bodyOf(namesake), concept, undefined);
      touch(namesake, { ...body, ontologyRef: ref(concept.canonicalId), layerIds: layers(body) }, true);
      plan.outcome.linked.push({ conceptId: namesake.id, name: namesake.name, canonicalId: concept.canonicalId });
      plan.entries.push({ canonicalId: concept.canonicalId, conceptId: namesake.id, origin: 'linked' });
      continue;
    }
    const row = newConceptRow(owner, concept.name, newBody({
      ...libraryMembers(concept),
      trustTier: LIBRARY_TRUST_TIER,
      ontologyRef: ref(concept.canonicalId),
      layerIds: [layer],
      lastEditedBy: userId,
      lastEditedAt: now,
    }));
    names.set(row.name_key, row);
    plan.inserts.push(row);
    plan.outcome.created.push({ conceptId: row.id, name: row.name, canonicalId: concept.canonicalId });
    plan.entries.push({ canonicalId: concept.canonicalId, conceptId: row.id, origin: 'created' });
  }

  const kept = new Set(library.concepts.map((c) => c.canonicalId));
  for (const row of rows.filter((r) => installedFrom(r) && !kept.has(bodyOf(r).ontologyRef!.canonicalId))) {
    touch(row, detached(bodyOf(row), library.id), true);
    plan.outcome.detached.push({ conceptId: row.id, name: row.name, canonicalId: bodyOf(row).ontologyRef!.canonicalId });
  }
  return plan;
}

/** A concept's body without the library: no ontologyRef, no layer id of it. */
export function detached(body: ConceptBody, ontologyId: string): ConceptBody {
  return { ...body, ontologyRef: null, layerIds: body.layerIds.filter((id) => !isLayerOf(ontologyId)(id)) };
}

/** The concept members a library concept gives a new concept. */
function libraryMembers(concept: LibraryConcept): Partial<ConceptBody> {
  return {
    description: concept.description,
    conceptClassification: concept.conceptClassification,
    conceptKind: concept.conceptKind,
    schemaFieldName: concept.schemaFieldName,
    schemaType: concept.schemaType,
    schemaSubtype: concept.schemaSubtype,
    suggestedRole: concept.suggestedRole,
    tags: [...concept.tags],
    valueMappings: structuredClone(concept.valueMappings),
    metadata: structuredClone(concept.metadata),
  };
}

type Merged = { body: ConceptBody; name?: string; changed: string[]; kept: string[] };

/** Member by member: a member that would change is set, or kept (and reported) when a person locked it. */
function tracker(locked: string[]) {
  const changes = { changed: [] as string[], kept: [] as string[] };
  const apply = (member: string, differs: boolean, set: () => void) => {
    if (!differs) return;
    if (locked.includes(member)) changes.kept.push(member);
    else {
      set();
      changes.changed.push(member);
    }
  };
  return { changes, apply };
}

/** What every concept of the library takes from a version, created or linked: its tags, value mappings and metadata. */
function mergeShared(body: ConceptBody, concept: LibraryConcept, before: LibraryConcept | undefined, { changes, apply }: ReturnType<typeof tracker>): void {
  const tags = mergeTags(body.tags, concept.tags, before?.tags);
  apply('tags', !sameTags(tags, body.tags), () => (body.tags = tags));
  const values = mergeValueMappings(body.valueMappings, concept.valueMappings, before?.valueMappings);
  apply('valueMappings', !sameValueMappings(values, body.valueMappings), () => (body.valueMappings = values));
  const metadata = mergeMetadata(body.metadata, body.lockedMetadataFields, concept.metadata, before?.metadata);
  body.metadata = metadata.metadata;
  changes.changed.push(...metadata.changed);
  changes.kept.push(...metadata.kept);
}

/**
 * A concept the install created: every library-owned member follows the new version unless a person locked it.
 * A new name another concept holds is not taken (reported as kept).
 */
function updateCreated(row: ConceptRow, concept: LibraryConcept, before: LibraryConcept | undefined, names: Map<string, ConceptRow>): Merged {
  const body: ConceptBody = { ...bodyOf(row) };
  const track = tracker(body.lockedConceptFields);
  const wanted = { ...libraryMembers(concept), trustTier: LIBRARY_TRUST_TIER } as ConceptBody;
  for (const member of OWNED) track.apply(member, JSON.stringify(body[member]) !== JSON.stringify(wanted[member]), () => Object.assign(body, { [member]: wanted[member] }));
  mergeShared(body, concept, before, track);
  let name = row.name;
  const taken = names.get(concept.name.toLowerCase());
  if (taken !== undefined && taken.id !== row.id) track.changes.kept.push('name');
  else {
    track.apply('name', concept.name !== row.name, () => {
      name = concept.name;
      names.delete(row.name_key);
      names.set(name.toLowerCase(), row);
    });
  }
  return { body, name, ...track.changes };
}

/**
 * A concept the workspace had before (linked): it keeps its own members and mappings; it gains the library's value
 * mappings and tags, and the description and metadata members it lacks (or still holds from the earlier version).
 */
function updateLinked(current: ConceptBody, concept: LibraryConcept, before: LibraryConcept | undefined): Merged {
  const body: ConceptBody = { ...current };
  const track = tracker(body.lockedConceptFields);
  const ours = body.description === null || body.description === before?.description;
  track.apply('description', ours && body.description !== concept.description, () => (body.description = concept.description));
  mergeShared(body, concept, before, track);
  return { body, ...track.changes };
}
