/**
 * Installing library versions, as pure functions: how a version's members are laid over a concept's (members.ts),
 * what an install plans (install-plan.ts), and how extraction reads curated value mappings (extract/curated.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LibraryConcept, OntologyLibrary } from '../../../schemas/ontology-libraries.js';
import { bodyOf, newBody, newConceptRow } from '../../../src/ontology/concepts.js';
import { curatedShare, extendCurated } from '../../../src/ontology/extract/curated.js';
import { planInstall } from '../../../src/ontology/libraries/install-plan.js';
import { mergeMetadata, mergeTags, mergeValueMappings, sameValueMappings } from '../../../src/ontology/libraries/members.js';

const owner = { organisationId: 'org_1', workspaceId: 'ws_1' };
const NOW = '2026-01-01T00:00:00.000Z';

const libraryConcept = (members: Partial<LibraryConcept> = {}): LibraryConcept => ({
  canonicalId: 'segment', name: 'Segment', description: 'v1', conceptClassification: 'dimension', conceptKind: 'standard', schemaFieldName: 'segment', schemaType: 'text',
  schemaSubtype: null, suggestedRole: 'source', tags: ['shop'], valueMappings: [{ canonicalValue: 'Retail', aliases: ['R'] }], metadata: { unit: 'segment' }, fieldNames: ['segment'], ...members,
});
const library = (version: string, concepts: LibraryConcept[]): OntologyLibrary => ({ id: 'test.shop', version, name: 'Shop', description: '', concepts });

test('value mappings: the library\'s spellings win, the concept\'s own stay, spellings a version dropped go, and merging again changes nothing', () => {
  const base = [{ canonicalValue: 'Retail', aliases: ['R', 'RET'] }];
  const next = [{ canonicalValue: 'Retail', aliases: ['R', 'RTL'] }, { canonicalValue: 'Wholesale', aliases: ['W'] }];
  const current = [
    { canonicalValue: 'Retail', aliases: ['R', 'RET', 'retail shop'] },
    { canonicalValue: 'Online', aliases: ['web', 'W'] },
    { canonicalValue: 'RTL', aliases: ['rtl'] },
  ];
  const merged = mergeValueMappings(current, next, base);
  assert.deepEqual(merged, [
    { canonicalValue: 'Retail', aliases: ['R', 'RTL', 'retail shop', 'rtl'] },
    { canonicalValue: 'Wholesale', aliases: ['W'] },
    { canonicalValue: 'Online', aliases: ['web'] },
  ]);
  assert.deepEqual(mergeValueMappings(merged, next, next), merged);
  assert.ok(sameValueMappings(merged, [...merged].reverse().map((m) => ({ ...m, aliases: [...m.aliases].reverse() }))), 'order does not matter');
  assert.deepEqual(mergeTags(['ours', 'old'], ['shop'], ['old']), ['ours', 'shop']);
});

test('metadata: set where absent or still the earlier version\'s, kept where locked, left where something else measured it', () => {
  const { metadata, changed, kept } = mergeMetadata(
    { unit: 'segment', valueClass: 'categorical', higherIsBetter: false, retired: 'x', minValue: 1 },
    ['higherIsBetter'],
    { unit: 'customer segment', valueClass: 'ordinal', higherIsBetter: true, locationType: 'region' },
    { unit: 'segment', valueClass: 'binary', higherIsBetter: false, retired: 'x' },
  );
  assert.deepEqual(metadata, { unit: 'customer segment', valueClass: 'categorical', higherIsBetter: false, minValue: 1, locationType: 'region' });
  assert.deepEqual(changed, ['metadata.unit', 'metadata.locationType', 'metadata.retired']);
  assert.deepEqual(kept, ['metadata.higherIsBetter']);
});

test('an install plans new concepts, links a namesake, updates created concepts except locked members, and refuses a namesake of another library', () => {
  const v1 = library('1.0.0', [libraryConcept(), libraryConcept({ canonicalId: 'channel', name: 'Channel' })]);
  const first = planInstall({ library: v1, base: null, rows: [newConceptRow(owner, 'CHANNEL', newBody({ description: 'ours' }))], entries: [], owner, userId: 'usr_1', now: NOW });
  assert.deepEqual(first.outcome.created.map((c) => c.name), ['Segment']);
  assert.deepEqual(first.outcome.linked.map((c) => c.name), ['CHANNEL']);
  const linked = bodyOf(first.updates[0]!.row);
  assert.equal(linked.description, 'ours', 'a linked concept keeps its description');
  assert.deepEqual(linked.layerIds, ['ontology:test.shop@1.0.0']);
  assert.equal(first.updates[0]!.row.edit_version, 1);

  // A person locks the description and the unit of the created concept; version 2 changes both and the tags.
  const created = first.inserts[0]!;
  const edited = { ...created, body: JSON.stringify({ ...bodyOf(created), description: 'mine', metadata: { unit: 'mine' }, lockedConceptFields: ['description'], lockedMetadataFields: ['unit'] }), edit_version: 1 };
  const v2 = library('1.1.0', [libraryConcept({ description: 'v2', tags: ['shop', 'retail'], metadata: { unit: 'customer segment' } }), libraryConcept({ canonicalId: 'channel', name: 'Channel' })]);
  const second = planInstall({ library: v2, base: v1, rows: [edited, first.updates[0]!.row], entries: first.entries, owner, userId: 'usr_1', now: NOW });
  assert.deepEqual(second.outcome.updated, [{ conceptId: created.id, name: 'Segment', canonicalId: 'segment', changed: ['tags'], kept: ['description', 'metadata.unit'] }]);
  const body = bodyOf(second.updates.find((u) => u.row.id === created.id)!.row);
  assert.deepEqual([body.description, body.metadata.unit, body.tags], ['mine', 'mine', ['shop', 'retail']]);
  assert.deepEqual(second.outcome.unchanged.map((c) => c.name), ['CHANNEL']);
  const channel = second.updates.find((u) => u.row.id === first.updates[0]!.row.id)!;
  assert.equal(channel.row.edit_version, 1, 'only the ontologyRef and layer id moved: no new editVersion');
  assert.equal(bodyOf(channel.row).ontologyRef?.ontologyVersion, '1.1.0');

  const foreign = newConceptRow(owner, 'segment', newBody({ ontologyRef: { ontologyId: 'acme.crm', ontologyVersion: '1.0.0', canonicalId: 'segment', installScope: 'workspace' } }));
  assert.throws(() => planInstall({ library: v1, base: null, rows: [foreign], entries: [], owner, userId: 'usr_1', now: NOW }), /stands for segment of acme\.crm/);
});

test('curated value mappings: their share of a field\'s values, loosely; extended by the data\'s spellings, never regrouped', () => {
  const curated = [
    { canonicalValue: 'Germany', aliases: ['DE', 'DEU'] },
    { canonicalValue: 'France', aliases: ['FR', 'FRA'] },
    { canonicalValue: 'Euro', aliases: ['€'] },
  ];
  const values = (...list: string[]) => list.map((value) => ({ value, count: 1 }));
  assert.equal(curatedShare(values('DE', 'france', 'F.R.', '€', 'Mars'), curated), 0.8);
  assert.equal(curatedShare(values('E', 'e'), [{ canonicalValue: 'Euro', aliases: ['E'] }]), 0.5, 'one letter: matched exactly');
  assert.equal(curatedShare(values('e'), [{ canonicalValue: 'Euro', aliases: ['€'] }]), 0, 'a symbol has no loose form');
  assert.deepEqual(extendCurated(curated, [...values('DE', 'germany', 'Deu', 'new york', ''), { value: 'New York', count: 5 }]), [
    { canonicalValue: 'Germany', aliases: ['DE', 'DEU', 'germany', 'Deu'] },
    { canonicalValue: 'France', aliases: ['FR', 'FRA'] },
    { canonicalValue: 'Euro', aliases: ['€'] },
    { canonicalValue: 'New York', aliases: ['new york'] },
  ]);
});
