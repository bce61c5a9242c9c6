import type { FieldMapping } from '../../../schemas/ontology.js';
import { type ConceptBody, type FieldSketch, type Sketches, fullMapping, mappingKey, newBody } from '../concepts.js';
import { conceptNameOf, nameSimilarity, readName } from './names.js';
import { type ColumnFacts, type Profile, isAnchorClassification, isTextual, suggestedRoleOf } from './profile.js';
import type { MinedRule } from './rules.js';
import { curatedShare, extendCurated } from './curated.js';
import { containment } from './sketch.js';
import { resolver, valueMappings } from './values.js';

/** An existing concept of the workspace, as extraction sees it. */
export interface KnownConcept {
  id: string;
  name: string;
  body: ConceptBody;
  sketches: Sketches;
}

/** One field's match: the concept it joins (null: a new one) and why. */
export interface Match {
  profile: Profile;
  conceptId: string | null;
  confidence: number;
  evidence: string[];
}

/** A time field of the source ordered against another on every row with both (see rules.ts temporalOrder). */
export interface TimeOrder {
  field: string;
  otherField: string;
  relation: 'precedes' | 'follows';
  support: number;
  violationRate: number;
}

export interface PlannedConcept {
  id: string;
  isNew: boolean;
  name: string;
  body: ConceptBody;
  sketches: Sketches;
}

export interface ExtractionPlan {
  matches: Match[];
  /** Concepts to write: existing ones changed (`isNew` false) and new ones. */
  concepts: PlannedConcept[];
  /** Fields left undescribed, and why. */
  excluded: Array<{ field: string; reason: string }>;
}

/** A match at or above this confidence joins the concept; at or above CONFIRMED it is `confirmed`, else `suggested`. */
export const MATCH_THRESHOLD = 0.6;
export const CONFIRMED = 0.8;
const MAX_CATEGORIES = 50;
const MAX_RULES = 50;

const family = (type: string) => (type === 'integer' || type === 'decimal' ? 'number' : type === 'datetime' ? 'date' : isTextual(type) ? 'text' : type);
const valueBearing = (classification: string) => classification === 'identifier' || classification === 'dimension' || classification === 'location' || classification === 'boolean';

/**
 * How sure it is that `profile` is concept `known`: name evidence (the words the names share) and value evidence
 * (how much of the smaller column's distinct values the other holds) combined as independent signals (noisy-or).
 */
export function score(profile: Profile, known: KnownConcept): { confidence: number; evidence: string[] } {
  const body = known.body;
  const sameFamily = family(profile.facts.type) === family(body.schemaType) || (profile.classification === 'identifier' && body.conceptClassification === 'identifier');
  if (!sameFamily) return { confidence: 0, evidence: [] };
  const names = [known.name, body.schemaFieldName, ...body.fieldMappings.map((m) => m.field)];
  let name = 0;
  let conflict = true;
  let closest = known.name;
  for (const other of names) {
    const similarity = nameSimilarity(profile.name, readName(other));
    if (similarity.score > name) [name, closest] = [similarity.score, other];
    conflict &&= similarity.conflict;
  }
  let values = 0;
  if (valueBearing(profile.classification) && valueBearing(body.conceptClassification)) {
    for (const sketch of Object.values(known.sketches)) values = Math.max(values, containment({ sketch: profile.facts.sketch, distinct: profile.facts.distinct }, { sketch: sketch.hashes, distinct: sketch.distinct }));
    // A library's concept lists its values (it has no sketches until a field is mapped to it).
    if (body.ontologyRef !== null) values = Math.max(values, curatedShare(profile.facts.top, body.valueMappings));
  }
  // Distinctive values (codes, sparse numbers) shared are strong evidence whatever the names; values any column may
  // hold (small dense integers, tiny domains) are weak, and weaker still under a name that names something else.
  const nameEvidence = 0.9 * name;
  const valueEvidence = profile.distinctive ? 0.95 * values : 0.3 * values * (conflict ? 0.5 : 1);
  let confidence = 1 - (1 - nameEvidence) * (1 - valueEvidence);
  // A different reading of the same values (a key read as a category where few of its values appear) costs less than a different kind.
  if (profile.classification !== body.conceptClassification) confidence *= valueBearing(profile.classification) && valueBearing(body.conceptClassification) ? 0.8 : 0.6;
  const evidence: string[] = [];
  if (name > 0) evidence.push(`name "${profile.facts.field}" reads like "${closest}" (${Math.round(name * 100)}% of words shared)`);
  if (values > 0) evidence.push(`${Math.round(values * 100)}% of the distinct values are shared${profile.distinctive ? '' : ' (values common to unrelated columns: weak evidence)'}`);
  if (profile.classification !== body.conceptClassification) evidence.push(`classified ${profile.classification}, the concept ${body.conceptClassification}`);
  return { confidence: round(confidence), evidence };
}

/**
 * Matches a source's fields to the workspace's concepts (each concept takes at most one field of a source, the
 * most confident first) and plans what to write: new concepts for the fields nothing matched, and for every
 * matched or new concept its mapping, statistics, value mappings, rules, time order and anchor links.
 */
export function planExtraction(sourceId: string, profiles: Profile[], known: KnownConcept[], rules: MinedRule[], orders: TimeOrder[], at: string, newId: () => string): ExtractionPlan {
  const excluded: ExtractionPlan['excluded'] = [];
  const described: Profile[] = [];
  for (const profile of profiles) {
    if (profile.facts.rows === profile.facts.nulls) excluded.push({ field: profile.facts.field, reason: 'no values' });
    else if (profile.classification === 'text') excluded.push({ field: profile.facts.field, reason: 'free text' });
    else described.push(profile);
  }
  // Fields mapped before keep their concept; the others are matched, most confident pair first.
  const matches = new Map<string, Match>();
  const taken = new Set<string>();
  for (const profile of described) {
    const mappedHere = (m: FieldMapping) => m.sourceId === sourceId && m.field === profile.facts.field && m.status !== 'rejected';
    const previous = known.find((concept) => concept.body.fieldMappings.some(mappedHere));
    if (previous === undefined) continue;
    const mapping = previous.body.fieldMappings.find(mappedHere)!;
    matches.set(profile.facts.field, { profile, conceptId: previous.id, confidence: mapping.confidence, evidence: mapping.evidence });
    taken.add(previous.id);
  }
  const candidates: Array<Match & { conceptId: string }> = [];
  for (const profile of described) {
    if (matches.has(profile.facts.field)) continue;
    for (const concept of known) {
      // A concept takes one field per source; and never one a person rejected for it.
      if (concept.body.fieldMappings.some((m) => m.sourceId === sourceId && (m.status !== 'rejected' || m.field === profile.facts.field))) continue;
      const { confidence, evidence } = score(profile, concept);
      if (confidence >= MATCH_THRESHOLD) candidates.push({ profile, conceptId: concept.id, confidence, evidence });
    }
  }
  candidates.sort((a, b) => b.confidence - a.confidence || a.profile.facts.field.localeCompare(b.profile.facts.field));
  for (const candidate of candidates) {
    if (matches.has(candidate.profile.facts.field) || taken.has(candidate.conceptId)) continue;
    matches.set(candidate.profile.facts.field, candidate);
    taken.add(candidate.conceptId);
  }
  for (const profile of described) {
    if (!matches.has(profile.facts.field)) matches.set(profile.facts.field, { profile, conceptId: null, confidence: 1, evidence: ['no concept of the workspace matched: a new concept'] });
  }

  // The concepts to write, keyed by concept id or, for new ones, by field.
  const names = new Set(known.map((c) => c.name.toLowerCase()));
  const written = new Map<string, PlannedConcept>();
  for (const match of matches.values()) {
    const field = match.profile.facts.field;
    if (match.conceptId !== null) {
      const concept = known.find((c) => c.id === match.conceptId)!;
      written.set(field, { id: concept.id, isNew: false, name: concept.name, body: structuredClone(concept.body), sketches: { ...concept.sketches } });
    } else {
      let name = conceptNameOf(field);
      if (names.has(name.toLowerCase())) name = `${name} (${field})`;
      for (let n = 2; names.has(name.toLowerCase()); n += 1) name = `${conceptNameOf(field)} (${field} ${n})`;
      names.add(name.toLowerCase());
      written.set(field, { id: newId(), isNew: true, name, body: newConceptBody(match.profile), sketches: {} });
    }
  }
  const conceptOf = (field: string) => written.get(field);
  const primaryKey = [...matches.values()].find((m) => m.profile.classification === 'identifier' && m.profile.isUnique);
  const timeFields = [...matches.values()].filter((m) => m.profile.classification === 'time');
  for (const match of matches.values()) {
    const profile = match.profile;
    const target = conceptOf(profile.facts.field)!;
    const key = mappingKey({ sourceId, field: profile.facts.field });
    target.sketches[key] = { hashes: profile.facts.sketch, distinct: profile.facts.distinct, top: profile.facts.top } satisfies FieldSketch;
    mergeDetected(target.body, profile);
    const canonical = resolver(target.body.valueMappings);
    // A field mapped before keeps its place (and what a person decided of it: status, precedence, scope).
    const before = target.body.fieldMappings.findIndex((m) => mappingKey(m) === key);
    const mapping = mappingOf(sourceId, match, target.body, canonical, at);
    if (before === -1) target.body.fieldMappings.push(mapping);
    else {
      const kept = target.body.fieldMappings[before]!;
      const valueMap = keptValueMap(kept.valueMap, mapping.valueMap, canonical);
      target.body.fieldMappings[before] = kept.source === 'ingest' ? { ...mapping, valueMap } : { ...kept, conformance: mapping.conformance, valueMap };
    }
    // Rules and time order seen in this source replace what was seen in it before; those of other sources stay.
    const prefix = `${sourceId}.`;
    if (!target.body.lockedConceptFields.includes('relationshipRules')) {
      const mined = rules.filter((rule) => rule.field === profile.facts.field).slice(0, MAX_RULES).map((rule) => ({
        ruleType: rule.ruleType,
        sourceVariable: `${sourceId}.${rule.field}`,
        condition: rule.condition,
        allowedValues: rule.allowedValues,
        minValue: rule.minValue,
        maxValue: rule.maxValue,
        confidence: round(rule.confidence),
        support: rule.support,
        strength: rule.strength,
        violationRate: round(rule.violationRate),
        source: 'mined' as const,
        cycle: profile.cycle,
      }));
      target.body.relationshipRules = [...target.body.relationshipRules.filter((r) => r.source === 'manual' || !r.sourceVariable.startsWith(prefix)), ...mined];
    }
    const order = orders.filter((o) => o.field === profile.facts.field).map((o) => ({
      conceptId: conceptOf(o.otherField)?.id ?? null,
      sourceId,
      field: o.field,
      otherField: o.otherField,
      relation: o.relation,
      support: o.support,
      violationRate: round(o.violationRate),
    }));
    const detectedOrder = [...target.body.detectedConceptStructure.temporalPrerequisites.filter((t) => t.sourceId !== sourceId), ...order];
    target.body.detectedConceptStructure = { temporalPrerequisites: detectedOrder, suggestedRole: suggestedRoleOf(target.body.conceptClassification) };
    if (!target.body.lockedConceptFields.includes('temporalPrerequisites')) target.body.temporalPrerequisites = detectedOrder;
    // Anchor links: what this field describes in this source (its rows' key, its time).
    if (!isAnchorClassification(profile.classification) && !target.body.lockedConceptFields.includes('anchorConceptLinks')) {
      const links = target.body.anchorConceptLinks.filter((link) => link.sourceId !== sourceId);
      const anchorOf = (field: string) => conceptOf(field)!.id;
      if (primaryKey !== undefined) links.push({ anchorConceptId: anchorOf(primaryKey.profile.facts.field), relation: 'attribute_of', sourceId, viaField: primaryKey.profile.facts.field });
      if (timeFields.length === 1) links.push({ anchorConceptId: anchorOf(timeFields[0]!.profile.facts.field), relation: 'measured_at', sourceId, viaField: timeFields[0]!.profile.facts.field });
      target.body.anchorConceptLinks = links;
    }
  }
  return { matches: [...matches.values()], concepts: [...written.values()], excluded };
}

function newConceptBody(profile: Profile): ConceptBody {
  const classification = profile.classification;
  const words = conceptNameOf(profile.facts.field).toLowerCase();
  const article = /^[aeiou]/.test(words) ? 'an' : 'a';
  const what: Record<string, string> = {
    identifier: `Identifies ${article} ${words}`,
    time: `When: ${words}`,
    location: `Where: ${words}${profile.locationType === null ? '' : ` (${profile.locationType.replace('_', ' ')})`}`,
    measure: `A measured quantity: ${words}${profile.facts.unit === null ? '' : ` (${profile.facts.unit})`}`,
    dimension: `A category: ${words}`,
    boolean: `Yes or no: ${words}`,
    list: `A list of values: ${words}`,
  };
  return newBody({
    description: what[classification] ?? null,
    conceptClassification: classification,
    conceptKind: isAnchorClassification(classification) ? 'anchor' : 'standard',
    schemaFieldName: profile.facts.field,
    schemaType: profile.facts.type,
    schemaSubtype: profile.facts.subtype,
    suggestedRole: suggestedRoleOf(classification),
  });
}

/** Folds a field's statistics into the concept's `detectedMetadata`, and into `metadata` except where locked. */
function mergeDetected(body: ConceptBody, profile: Profile): void {
  const facts = profile.facts;
  const before = body.detectedMetadata;
  const detected: Record<string, unknown> = { ...before };
  const less = (a: number | string, b: unknown) => (typeof a === 'number' && typeof b === 'number' ? a < b : String(a) < String(b));
  if (facts.min !== null) detected.minValue = before.minValue === undefined || less(facts.min, before.minValue) ? facts.min : before.minValue;
  if (facts.max !== null) detected.maxValue = before.maxValue === undefined || less(before.maxValue as number | string, facts.max) ? facts.max : before.maxValue;
  detected.isUnique = profile.isUnique && (before.isUnique as boolean | undefined) !== false;
  detected.isCyclic = profile.cycle !== null;
  if (profile.cycle !== null) detected.cycle = profile.cycle;
  if (profile.locationType !== null) detected.locationType = profile.locationType;
  if (facts.unit !== null) detected.unit = facts.unit;
  detected.valueClass = profile.valueClass;
  if (facts.granularity !== null) detected.tsGranularity = facts.granularity;
  if (facts.type === 'date' || facts.type === 'datetime') {
    detected.tsStart = detected.minValue ?? null;
    detected.tsEnd = detected.maxValue ?? null;
  }
  if (facts.type === 'date' || facts.type === 'datetime') Object.assign(detected, timeProfile(facts));
  if (facts.type === 'array') {
    detected.elementSchemaType = facts.subtype;
    if (facts.elements !== null) {
      detected.elementCategories = facts.elements.top.slice(0, MAX_CATEGORIES);
      detected.sizeStatistics = { min: facts.elements.minSize, max: facts.elements.maxSize, avg: facts.elements.avgSize, median: facts.elements.medianSize, p95: facts.elements.p95Size };
    }
  }
  // Categories and value mappings over every field of the concept (their most frequent values).
  if (profile.classification === 'dimension' || profile.classification === 'location' || profile.classification === 'boolean') {
    const mappings = valueMappings(facts.top);
    // A library's value mappings are kept whole; the data's other spellings join them (see curated.ts).
    const merged = body.ontologyRef !== null
      ? extendCurated(body.valueMappings, [...facts.top, ...((before.categories as string[] | undefined) ?? []).map((value) => ({ value, count: 1 }))])
      : valueMappings([...facts.top, ...body.valueMappings.flatMap((m) => [m.canonicalValue, ...m.aliases].map((value) => ({ value, count: 1 }))), ...((before.categories as string[] | undefined) ?? []).map((value) => ({ value, count: 1 }))]);
    const canonical = resolver(merged.length > 0 ? merged : mappings);
    const categories = new Set<string>((before.categories as string[] | undefined) ?? []);
    for (const { value } of facts.top) categories.add(canonical.get(value) ?? value);
    if (categories.size <= MAX_CATEGORIES) detected.categories = [...categories].sort();
    if (!body.lockedConceptFields.includes('valueMappings')) body.valueMappings = merged;
  }
  body.detectedMetadata = detected;
  const drift: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(detected)) {
    if (body.lockedMetadataFields.includes(key)) {
      if (JSON.stringify(body.metadata[key]) !== JSON.stringify(value)) drift[key] = value;
    } else body.metadata[key] = value;
  }
  const driftFields = Object.keys(drift);
  body.lineageDrift = driftFields.length === 0 ? null : { fields: driftFields, detected: drift, detectedAt: new Date().toISOString() };
}

const STEP_MS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 };

/**
 * The time profile of a time field (`ts*` members): its granularity, span, how many steps of that granularity the
 * span holds, how many have a value, and the share covered (months, quarters and years counted on the calendar).
 */
function timeProfile(facts: ColumnFacts): Record<string, unknown> {
  const start = facts.min === null ? NaN : Date.parse(String(facts.min).replace(' ', 'T') + (String(facts.min).length > 10 && !/[zZ]$/.test(String(facts.min)) ? 'Z' : ''));
  const end = facts.max === null ? NaN : Date.parse(String(facts.max).replace(' ', 'T') + (String(facts.max).length > 10 && !/[zZ]$/.test(String(facts.max)) ? 'Z' : ''));
  if (facts.granularity === null || !Number.isFinite(start) || !Number.isFinite(end)) return { tsGranularity: facts.granularity };
  const months = (a: Date, b: Date) => (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
  const [a, b] = [new Date(start), new Date(end)];
  const steps =
    facts.granularity === 'month' ? months(a, b) + 1
    : facts.granularity === 'quarter' ? Math.floor(months(a, b) / 3) + 1
    : facts.granularity === 'year' ? b.getUTCFullYear() - a.getUTCFullYear() + 1
    : Math.floor((end - start) / STEP_MS[facts.granularity]!) + 1;
  return {
    tsGranularity: facts.granularity,
    tsSpanDays: round((end - start) / 86_400_000),
    tsExpectedSteps: steps,
    tsObservedSteps: facts.distinct,
    tsMissingSteps: Math.max(0, steps - facts.distinct),
    tsCoverage: steps <= 0 ? null : round(Math.min(1, facts.distinct / steps)),
  };
}

/**
 * A field's value map after a new batch: what this extraction resolved (its most frequent values), over what was
 * resolved before (an enrichment resolves every value) where that still names one of the concept's canonical values.
 */
function keptValueMap(before: Record<string, string> | null, now: Record<string, string> | null, canonical: Map<string, string>): Record<string, string> | null {
  const merged = { ...Object.fromEntries(Object.entries(before ?? {}).filter(([, to]) => canonical.get(to) === to)), ...now };
  return Object.keys(merged).length === 0 ? null : merged;
}

function mappingOf(sourceId: string, match: Match, body: ConceptBody, canonical: Map<string, string>, at: string): FieldMapping {
  const facts = match.profile.facts;
  const present = facts.rows - facts.nulls;
  const nullRate = facts.rows === 0 ? 0 : facts.nulls / facts.rows;
  // A library's concept allows its canonical values; another, the categories seen (else its value mappings' values).
  const allowed = body.ontologyRef !== null && body.valueMappings.length > 0
    ? body.valueMappings.map((m) => m.canonicalValue)
    : ((body.metadata.categories as string[] | undefined) ?? (body.valueMappings.length > 0 ? body.valueMappings.map((m) => m.canonicalValue) : null));
  let coverage: number | null = null;
  const unresolved: Array<{ value: string; count: number }> = [];
  if (allowed !== null && facts.top.length > 0) {
    const known = new Set(allowed);
    const listed = facts.top.reduce((sum, v) => sum + v.count, 0);
    let resolved = 0;
    for (const value of facts.top) {
      if (known.has(canonical.get(value.value) ?? value.value)) resolved += value.count;
      else unresolved.push(value);
    }
    coverage = listed === 0 ? null : round(resolved / listed);
  }
  const keyRole = match.profile.classification === 'identifier' ? (match.profile.isUnique ? 'primary' : 'foreign') : null;
  const granularity = facts.granularity;
  const conceptGranularity = (body.metadata.tsGranularity as string | undefined) ?? null;
  const granularityMatch = granularity === null || conceptGranularity === null ? null : granularity === conceptGranularity;
  const conceptUnit = (body.metadata.unit as string | undefined) ?? null;
  const unitNote = facts.unit !== null && conceptUnit !== null && facts.unit !== conceptUnit ? `the field is in ${facts.unit}, the concept in ${conceptUnit}` : null;
  const duplicates = keyRole === null ? 0 : facts.duplicateKeys;
  const fail = nullRate > 0.5 || (coverage !== null && coverage < 0.5);
  const warn = nullRate > 0.1 || (coverage !== null && coverage < 0.95) || granularityMatch === false || unitNote !== null;
  const valueMap: Record<string, string> = {};
  for (const { value } of facts.top) {
    const to = canonical.get(value);
    if (to !== undefined && to !== value) valueMap[value] = to;
  }
  return fullMapping({
    sourceId,
    field: facts.field,
    status: match.confidence >= CONFIRMED ? 'confirmed' : 'suggested',
    source: 'ingest',
    confidence: match.confidence,
    evidence: match.evidence,
    valueMap: Object.keys(valueMap).length === 0 ? null : valueMap,
    keyRole,
    conformance: {
      rowsScanned: facts.rows,
      nullRate: round(nullRate),
      allowedValueCoverage: coverage,
      unresolvedValues: unresolved.slice(0, 20),
      inferredGranularity: granularity,
      granularityMatch,
      duplicateAnchorKeys: duplicates,
      unitNote,
      verdict: fail ? 'fail' : warn ? 'warn' : 'pass',
    },
    decidedBy: 'extraction',
    decidedAt: at,
    ...(present === 0 && { status: 'suggested' }),
  });
}

const round = (value: number) => Math.round(value * 1e4) / 1e4;
