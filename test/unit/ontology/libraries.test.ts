/**
 * The bundled ontology libraries as data: well-formed, unambiguous, their codes checked against ICU's (CLDR) region
 * and currency names where ICU knows them, and named so that extraction's name matcher recognises their columns.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Compile } from 'typebox/compile';
import { OntologyLibraryDefinitionSchema } from '../../../schemas/ontology-libraries.js';
import { ANCHOR_LOCATION_TYPES } from '../../../schemas/ontology.js';
import { nameSimilarity, readName } from '../../../src/ontology/extract/names.js';
import { keyOf } from '../../../src/ontology/extract/values.js';
import { BUNDLED_LIBRARIES } from '../../../src/ontology/libraries/index.js';
import { COUNTRIES } from '../../../src/ontology/libraries/reference/countries.js';
import { CURRENCIES } from '../../../src/ontology/libraries/reference/currencies.js';
import { US_STATES } from '../../../src/ontology/libraries/reference/us-states.js';
import { LibraryRegistry, compareVersions } from '../../../src/ontology/libraries/registry.js';

const concepts = BUNDLED_LIBRARIES.flatMap((library) => library.concepts.map((concept) => ({ library, concept })));
/** ICU's "&" and curly apostrophes written as the data writes them. */
const loose = (value: string) => keyOf(value.replaceAll('&', 'and'));
/** How extraction compares spellings (extract/curated.ts): loosely, except symbols and one-letter forms. */
const matchKey = (value: string) => (keyOf(value).length >= 2 ? keyOf(value) : `exactly ${value}`);

test('every bundled library passes the registry and the schema: unique canonicalIds and names, known classifications and location types', () => {
  assert.doesNotThrow(() => new LibraryRegistry(BUNDLED_LIBRARIES));
  const valid = Compile(OntologyLibraryDefinitionSchema);
  for (const library of BUNDLED_LIBRARIES) assert.ok(valid.Check(library), `${library.id}@${library.version}: ${JSON.stringify([...valid.Errors(library)].slice(0, 3))}`);
  for (const { library, concept } of concepts) {
    const where = `${library.id}@${library.version} ${concept.canonicalId}`;
    const locationType = concept.metadata.locationType;
    if (locationType !== undefined) assert.ok((ANCHOR_LOCATION_TYPES as readonly unknown[]).includes(locationType), `${where}: locationType ${String(locationType)}`);
    assert.equal(locationType !== undefined, concept.conceptClassification === 'location', `${where}: a place says what kind of place`);
  }
  for (const library of BUNDLED_LIBRARIES) {
    const ids = library.concepts.map((c) => c.canonicalId);
    assert.equal(new Set(ids).size, ids.length, `${library.id}: canonicalIds are unique`);
  }
});

test('the registry refuses a library it could not install, and orders versions numerically', () => {
  const base = BUNDLED_LIBRARIES[0]!;
  assert.throws(() => new LibraryRegistry([base, base]), /given twice/);
  assert.throws(() => new LibraryRegistry([{ ...base, version: '1.0' }]), /major\.minor\.patch/);
  assert.throws(() => new LibraryRegistry([{ ...base, id: 'Causa Commerce' }]), /lower-case/);
  assert.throws(() => new LibraryRegistry([{ ...base, concepts: [base.concepts[0]!, { ...base.concepts[1]!, canonicalId: base.concepts[0]!.canonicalId }] }]), /share the canonicalId/);
  assert.throws(() => new LibraryRegistry([{ ...base, concepts: [base.concepts[0]!, { ...base.concepts[1]!, name: base.concepts[0]!.name.toUpperCase() }] }]), /share the name/);
  const registry = new LibraryRegistry([{ ...base, version: '1.9.0' }, { ...base, version: '1.10.0' }, base]);
  assert.deepEqual(registry.versions(base.id), ['1.10.0', '1.9.0', '1.0.0']);
  assert.equal(registry.find(base.id)?.version, '1.10.0');
  assert.ok(compareVersions('2.0.0', '10.0.0') < 0);
});

test('no spelling of a value mapping is claimed by two canonical values, ignoring case, accents and punctuation', () => {
  for (const { library, concept } of concepts) {
    const owner = new Map<string, string>();
    for (const mapping of concept.valueMappings) {
      const spellings = [mapping.canonicalValue, ...mapping.aliases];
      assert.equal(new Set(spellings.map((s) => s.toLowerCase())).size, spellings.length, `${concept.canonicalId}: ${mapping.canonicalValue} lists a spelling twice`);
      for (const spelling of spellings) {
        assert.notEqual(spelling.trim(), '', `${concept.canonicalId}: an empty spelling`);
        const key = matchKey(spelling);
        const claimed = owner.get(key);
        assert.ok(claimed === undefined || claimed === mapping.canonicalValue, `${library.id} ${concept.canonicalId}: "${spelling}" is claimed by ${claimed} and ${mapping.canonicalValue}`);
        owner.set(key, mapping.canonicalValue);
      }
    }
  }
});

test('countries: well-formed, unique ISO 3166-1 codes that ICU names as the country; the sixty largest economies are there', () => {
  const regions = new Intl.DisplayNames(['en'], { type: 'region' });
  assert.ok(COUNTRIES.length >= 100);
  for (const [name, alpha2, alpha3, aliases = []] of COUNTRIES) {
    assert.match(alpha2, /^[A-Z]{2}$/, name);
    assert.match(alpha3, /^[A-Z]{3}$/, name);
    const icu = regions.of(alpha2)!;
    assert.notEqual(icu, alpha2, `${name}: ICU knows no region ${alpha2}`);
    const spellings = [name, ...aliases].map(loose);
    assert.ok(spellings.includes(loose(icu)) || loose(icu).startsWith(loose(name)), `${alpha2} is "${icu}" for ICU, not ${name}`);
  }
  for (const column of [1, 2] as const) {
    const codes = COUNTRIES.map((row) => row[column]);
    assert.equal(new Set(codes).size, codes.length, `alpha-${column + 1} codes are unique`);
  }
  // Alpha-3 codes that do not start with the alpha-2 code's first letter: each checked by hand against ISO 3166-1.
  assert.deepEqual(COUNTRIES.filter(([, a2, a3]) => a2[0] !== a3[0]).map(([, a2, a3]) => `${a2}/${a3}`), ['RS/SRB']);
  // The largest economies by nominal GDP (IMF World Economic Outlook, 2024), by alpha-3.
  const largest = 'USA CHN DEU JPN IND GBR FRA ITA CAN BRA RUS KOR AUS ESP MEX IDN NLD TUR SAU CHE POL TWN BEL ARG SWE IRL ISR SGP ARE THA AUT NOR PHL VNM BGD DNK MYS IRN COL HKG ZAF ROU EGY PAK CHL CZE FIN PRT PER KAZ IRQ NZL DZA GRC QAT HUN NGA UKR KWT MAR';
  const have = new Set(COUNTRIES.map(([, , a3]) => a3));
  assert.deepEqual(largest.split(' ').filter((code) => !have.has(code)), []);
});

test('US states: the 50 states and DC with their USPS codes', () => {
  const codes = 'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY'.split(' ');
  assert.deepEqual(US_STATES.map(([, code]) => code), codes);
  const expected: Record<string, string> = { CA: 'California', DC: 'District of Columbia', IA: 'Iowa', ME: 'Maine', MI: 'Michigan', MO: 'Missouri', MS: 'Mississippi', NE: 'Nebraska', NV: 'Nevada', WV: 'West Virginia' };
  for (const [code, name] of Object.entries(expected)) assert.equal(US_STATES.find(([, c]) => c === code)?.[0], name, code);
});

test('currencies: ISO 4217 codes ICU knows, each with its CLDR English name as an alias', () => {
  const names = new Intl.DisplayNames(['en'], { type: 'currency' });
  const known = new Set(Intl.supportedValuesOf('currency'));
  assert.ok(CURRENCIES.length >= 30);
  for (const [code, name, aliases = []] of CURRENCIES) {
    assert.match(code, /^[A-Z]{3}$/);
    assert.ok(known.has(code), `${code} is not an ISO 4217 currency ICU knows`);
    assert.equal(names.of(code), name, code);
    assert.ok(!aliases.some((alias) => ['$', '¥', 'kr', 'R'].includes(alias)), `${code}: a symbol several currencies share`);
  }
  for (const code of ['USD', 'EUR', 'JPY', 'GBP', 'CNY', 'CHF', 'CAD', 'AUD', 'INR', 'BRL', 'KRW', 'MXN']) assert.ok(CURRENCIES.some(([c]) => c === code), code);
});

test("extraction's name matcher reads each concept's fieldNames as that concept and no other", () => {
  for (const library of BUNDLED_LIBRARIES) {
    const similarity = (field: string, concept: (typeof library.concepts)[number]) =>
      Math.max(...[concept.name, concept.schemaFieldName].map((name) => nameSimilarity(readName(field), readName(name)).score));
    for (const concept of library.concepts) {
      assert.ok(concept.fieldNames.length > 0, concept.canonicalId);
      for (const field of concept.fieldNames) {
        assert.equal(similarity(field, concept), 1, `${field} reads as ${concept.name}: ${JSON.stringify(readName(field))}`);
        const others = library.concepts.filter((other) => other !== concept && similarity(field, other) === 1).map((other) => other.name);
        assert.deepEqual(others, [], `${field} reads as ${concept.name} and as ${others.join(', ')}`);
      }
    }
  }
});
