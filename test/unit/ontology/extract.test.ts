import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nameSimilarity, readName, splitWords } from '../../../src/ontology/extract/names.js';
import { type ColumnFacts, profileColumn } from '../../../src/ontology/extract/profile.js';
import { conditionalRules, temporalOrder } from '../../../src/ontology/extract/rules.js';
import { SKETCH_SIZE, containment } from '../../../src/ontology/extract/sketch.js';
import { resolveValues, valueMappings } from '../../../src/ontology/extract/values.js';
import { planExtraction } from '../../../src/ontology/extract/plan.js';
import { createHash } from 'node:crypto';

test('names are read for what they name: case styles, abbreviations, synonyms and key words', () => {
  assert.deepEqual(splitWords('customerID'), ['customer', 'id']);
  assert.deepEqual(splitWords('OrderDate2'), ['order', 'date', '2']);
  for (const name of ['cust_id', 'customerId', 'CustomerID', 'client_no', 'buyer-key']) assert.deepEqual(readName(name), { words: ['customer'], key: true }, name);
  assert.deepEqual(readName('client'), { words: ['customer'], key: false });
  assert.equal(nameSimilarity(readName('cust_id'), readName('client')).score, 1);
  const orderVersusCustomer = nameSimilarity(readName('order_id'), readName('customer_id'));
  assert.deepEqual(orderVersusCustomer, { score: 0, conflict: true });
  assert.equal(nameSimilarity(readName('order_amount'), readName('amount')).score, 0.5);
});

/** A 64-bit hash like the engine's cityHash64, for sketches built in JS. */
const hash = (value: string) => BigInt(`0x${createHash('sha256').update(value).digest('hex').slice(0, 16)}`);
const sketchOf = (values: string[]) => ({ sketch: [...new Set(values.map(hash))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, SKETCH_SIZE).map(String), distinct: new Set(values).size });

test('bottom-k sketches estimate containment within a few percent, whatever the sizes', () => {
  const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `C-${from + i}`);
  const cases: Array<[string[], string[], number]> = [
    [ids(0, 5000), ids(0, 2000), 1],
    [ids(0, 5000), ids(2500, 7500), 0.5],
    [ids(0, 100), ids(50, 150), 0.5],
    [ids(0, 3000), ids(10_000, 11_000), 0],
  ];
  for (const [a, b, expected] of cases) {
    const estimate = containment(sketchOf(a), sketchOf(b));
    assert.ok(Math.abs(estimate - expected) <= 0.1, `${a.length} vs ${b.length}: ${estimate} vs ${expected}`);
  }
  assert.equal(containment({ sketch: [], distinct: 0 }, sketchOf(ids(0, 10))), 0);
});

test('value mappings gather case, spacing, initials and abbreviations under the most frequent full spelling', () => {
  const mappings = valueMappings([
    { value: 'New York', count: 50 }, { value: 'NY', count: 10 }, { value: 'new york', count: 5 },
    { value: 'California', count: 40 }, { value: 'CA', count: 8 }, { value: 'Calif.', count: 2 },
    { value: 'Texas', count: 30 }, { value: 'New Jersey', count: 20 }, { value: 'NJ', count: 3 },
  ]);
  assert.deepEqual(mappings, [
    { canonicalValue: 'California', aliases: ['CA', 'Calif.'] },
    { canonicalValue: 'New Jersey', aliases: ['NJ'] },
    { canonicalValue: 'New York', aliases: ['NY', 'new york'] },
  ]);
  assert.deepEqual(valueMappings([{ value: 'red', count: 3 }, { value: 'blue', count: 2 }]), [], 'distinct values stay apart');
});

test('conditional rules: the fewest values covering 99% of the rows meeting a condition with support; none when nothing is ruled out', () => {
  const counts = [
    { a: 'US', b: 'USD', count: 100 }, { a: 'DE', b: 'EUR', count: 60 }, { a: 'FR', b: 'EUR', count: 199 }, { a: 'FR', b: 'USD', count: 1 },
    { a: 'JP', b: 'JPY', count: 5 },
  ];
  const rules = conditionalRules('country', 'currency', counts, 365);
  // FR: one row in 200 breaks it (a soft rule); JP: too few rows to say.
  assert.deepEqual(rules.map((r) => [r.condition!.value, r.allowedValues, r.support, r.strength]), [['FR', ['EUR'], 200, 'soft'], ['US', ['USD'], 100, 'hard'], ['DE', ['EUR'], 60, 'hard']]);
  assert.ok(Math.abs(rules[0]!.violationRate - 1 / 200) < 1e-9);
  assert.deepEqual(conditionalRules('a', 'b', [{ a: 'x', b: 'p', count: 50 }, { a: 'x', b: 'q', count: 50 }], 100), [], 'a rule must rule something out');
  assert.deepEqual(temporalOrder({ both: 100, aBeforeOrSame: 100, aAfterOrSame: 3 }), { relation: 'precedes', violationRate: 0 });
  assert.equal(temporalOrder({ both: 100, aBeforeOrSame: 100, aAfterOrSame: 100 }), null, 'equal times order nothing');
  assert.equal(temporalOrder({ both: 5, aBeforeOrSame: 5, aAfterOrSame: 0 }), null, 'too few rows');
});

const facts = (field: string, over: Partial<ColumnFacts>): ColumnFacts => ({
  sourceId: 'src_a', field, type: 'text', subtype: null, unit: null, rows: 1000, nulls: 0, distinct: 1000, top: [], min: null, max: null, averageLength: 8, sketch: [], granularity: null, duplicateKeys: 0, elements: null, ...over,
});

test('columns are classified from name, type and values', () => {
  const codes = Array.from({ length: 200 }, (_, i) => ({ value: `C-${10_000 + i}`, count: 1 }));
  assert.equal(profileColumn(facts('client', { top: codes })).classification, 'identifier');
  assert.equal(profileColumn(facts('order_id', { type: 'integer', min: 1, max: 1000 })).classification, 'identifier');
  assert.equal(profileColumn(facts('amount', { type: 'decimal', min: 1, max: 500 })).classification, 'measure');
  assert.equal(profileColumn(facts('segment', { distinct: 3, top: [{ value: 'a b', count: 500 }] })).classification, 'dimension');
  assert.equal(profileColumn(facts('opened', { type: 'date' })).classification, 'time');
  assert.equal(profileColumn(facts('zip', { distinct: 300, top: [{ value: '10001', count: 4 }] })).locationType, 'postal_code');
  assert.equal(profileColumn(facts('month', { type: 'integer', distinct: 12, min: 1, max: 12 })).cycle, 'month');
  assert.equal(profileColumn(facts('remark', { averageLength: 60 })).classification, 'text');
  assert.equal(profileColumn(facts('order_id', { type: 'integer', min: 1, max: 1000 })).distinctive, false, 'a dense integer range is shared by chance');
});

test('the planner maps a source key onto the concept whose values it shares, and a differently named key with the same values too', () => {
  const customers = Array.from({ length: 300 }, (_, i) => `C-${10_000 + i}`);
  const known = [{
    id: 'cpt_customer', name: 'Customer',
    body: { ...planExtraction('src_first', [profileColumn(facts('cust_id', { ...sketchOf(customers), rows: 300, top: customers.slice(0, 200).map((value) => ({ value, count: 1 })) }))], [], [], [], 'now', () => 'cpt_customer').concepts[0]!.body },
    sketches: { 'src_first.cust_id': { hashes: sketchOf(customers).sketch, distinct: 300, top: [] } },
  }];
  const orders = Array.from({ length: 1000 }, (_, i) => customers[i % 250]!);
  const party = profileColumn(facts('party', { ...sketchOf(orders), distinct: 250, top: orders.slice(0, 200).map((value) => ({ value, count: 4 })) }));
  const amount = profileColumn(facts('amount', { type: 'decimal', min: 1, max: 9 }));
  let next = 0;
  const plan = planExtraction('src_orders', [party, amount], known, [], [], 'now', () => `cpt_new${next++}`);
  const byField = new Map(plan.matches.map((m) => [m.profile.facts.field, m]));
  assert.equal(byField.get('party')!.conceptId, 'cpt_customer', JSON.stringify(byField.get('party')));
  assert.equal(byField.get('amount')!.conceptId, null);
  const customer = plan.concepts.find((c) => c.id === 'cpt_customer')!;
  assert.deepEqual(customer.body.fieldMappings.map((m) => [m.field, m.keyRole]), [['cust_id', 'primary'], ['party', 'foreign']]);
  const amountConcept = plan.concepts.find((c) => c.isNew)!;
  assert.deepEqual(amountConcept.body.anchorConceptLinks, [], 'no key in the orders source: nothing to describe');
});

test('a forward enrichment resolves each spelling to one canonical value, and leaves ambiguous or unknown ones unmatched', () => {
  const mappings = [
    { canonicalValue: 'New York', aliases: ['NY'] },
    { canonicalValue: 'New Jersey', aliases: [] },
    { canonicalValue: 'California', aliases: ['CA'] },
    { canonicalValue: 'Colorado', aliases: [] },
  ];
  const resolved = resolveValues(['NY', 'new york', 'NEW-JERSEY', 'NJ', 'California', 'Calif.', 'CA', 'CO', 'Nowhere', 'N'], mappings);
  assert.deepEqual(Object.fromEntries(resolved), {
    NY: 'New York', 'new york': 'New York', 'NEW-JERSEY': 'New Jersey', NJ: 'New Jersey', California: 'California', 'Calif.': 'California', CA: 'California',
    CO: null, Nowhere: null, N: null,
  }, 'CO abbreviates Colorado and California alike');
  const codes = [{ canonicalValue: 'Côte d\'Ivoire', aliases: ['CI', 'CIV'] }, { canonicalValue: 'Germany', aliases: ['DE', 'DEU'] }, { canonicalValue: 'Costa Rica', aliases: ['CR'] }];
  assert.deepEqual(Object.fromEntries(resolveValues(['Costa ica', 'Dominican epublic', 'COSTA-RICA', 'cote d ivoire', 'Deu'], codes)), {
    'Costa ica': null, 'Dominican epublic': null, 'COSTA-RICA': 'Costa Rica', 'cote d ivoire': 'Côte d\'Ivoire', Deu: 'Germany',
  }, 'a full spelling is never resolved through a code its initials happen to spell');
  assert.deepEqual(Object.fromEntries(resolveValues(['Co'], [{ canonicalValue: 'Colorado', aliases: [] }, { canonicalValue: 'Connecticut', aliases: [] }])), { Co: null }, 'an abbreviation of two values is neither');
});
