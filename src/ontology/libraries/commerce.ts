/**
 * `causa.commerce`: the entities, places, times and measures of selling things. Names and `schemaFieldName`s are
 * chosen so that extraction's name matcher (extract/names.ts) reads the usual column names as them; `fieldNames`
 * lists examples, checked by test/unit/ontology/libraries.test.ts.
 */
import type { LibraryConcept, OntologyLibrary } from '../../../schemas/ontology-libraries.js';
import { COUNTRIES } from './reference/countries.js';
import { CURRENCIES } from './reference/currencies.js';
import { US_STATES } from './reference/us-states.js';

const mapping = (canonicalValue: string, aliases: readonly string[]) => ({ canonicalValue, aliases: [...aliases] });

const anchor = (canonicalId: string, name: string, schemaFieldName: string, description: string, tags: string[], fieldNames: string[]): LibraryConcept => ({
  canonicalId, name, description, conceptClassification: 'identifier', conceptKind: 'anchor', schemaFieldName, schemaType: 'text', schemaSubtype: 'identifier',
  suggestedRole: 'key', tags: ['commerce', ...tags], valueMappings: [], metadata: {}, fieldNames,
});

const measure = (canonicalId: string, name: string, schemaFieldName: string, description: string, schemaType: 'decimal' | 'integer', metadata: Record<string, unknown>, fieldNames: string[]): LibraryConcept => ({
  canonicalId, name, description, conceptClassification: 'measure', conceptKind: 'standard', schemaFieldName, schemaType, schemaSubtype: metadata.unitKind === 'currency' ? 'currency' : null,
  suggestedRole: 'outcome', tags: ['commerce', 'measure'], valueMappings: [], metadata, fieldNames,
});

const time = (canonicalId: string, name: string, schemaFieldName: string, description: string, fieldNames: string[]): LibraryConcept => ({
  canonicalId, name, description, conceptClassification: 'time', conceptKind: 'anchor', schemaFieldName, schemaType: 'date', schemaSubtype: null,
  suggestedRole: 'time', tags: ['commerce', 'time'], valueMappings: [], metadata: { tsGranularity: 'day' }, fieldNames,
});

const CONCEPTS: LibraryConcept[] = [
  anchor('customer', 'Customer', 'customer_id', 'Identifies a customer: the person or organisation that buys.', ['party'], ['customer_id', 'cust_id', 'customerId', 'client_id', 'buyer_id', 'client_no', 'customer_number']),
  anchor('product', 'Product', 'product_id', 'Identifies a product or stock-keeping unit (SKU) that is sold.', ['catalog'], ['product_id', 'prod_id', 'sku', 'item_id', 'article_no', 'productCode']),
  anchor('order', 'Order', 'order_id', 'Identifies an order: one purchase of one or more products by a customer.', ['transaction'], ['order_id', 'ord_no', 'orderNumber', 'order_ref']),
  anchor('store', 'Store', 'store_id', 'Identifies a store, shop or other point of sale.', ['channel'], ['store_id', 'shop_id', 'outlet_code', 'branch_no', 'pos_id']),
  {
    ...anchor('email', 'Email', 'email', 'An email address; identifies the person it belongs to (personal data).', ['contact', 'pii'], ['email', 'emails', 'EMAIL']),
    schemaSubtype: null,
    metadata: { format: 'email', personalData: true },
  },
  time('order_date', 'Order date', 'order_date', 'The calendar day an order was placed.', ['order_date', 'orderDate', 'ord_dt']),
  time('date', 'Date', 'date', 'A calendar day (the day a row is about).', ['date', 'dt', 'dates']),
  {
    canonicalId: 'country',
    name: 'Country',
    description: 'A country or territory with an ISO 3166-1 code. Canonical values are common English short names; the alpha-2 and alpha-3 codes and other names are aliases.',
    conceptClassification: 'location',
    conceptKind: 'anchor',
    schemaFieldName: 'country',
    schemaType: 'text',
    schemaSubtype: null,
    suggestedRole: 'attribute',
    tags: ['commerce', 'geography', 'iso-3166'],
    valueMappings: COUNTRIES.map(([name, alpha2, alpha3, aliases = []]) => mapping(name, [alpha2, alpha3, ...aliases])),
    metadata: { locationType: 'country', codeStandard: 'ISO 3166-1' },
    fieldNames: ['country', 'country_code', 'countryCode', 'nation', 'country_id'],
  },
  {
    canonicalId: 'us_state',
    name: 'US state',
    description: 'A state of the United States, or the District of Columbia. Canonical values are the names; the USPS two-letter codes and AP abbreviations are aliases.',
    conceptClassification: 'location',
    conceptKind: 'anchor',
    schemaFieldName: 'state',
    schemaType: 'text',
    schemaSubtype: null,
    suggestedRole: 'attribute',
    tags: ['commerce', 'geography', 'united-states'],
    valueMappings: US_STATES.map(([name, code, aliases = []]) => mapping(name, [code, ...aliases])),
    metadata: { locationType: 'region', country: 'United States', codeStandard: 'USPS' },
    fieldNames: ['state', 'state_code', 'us_state', 'stateCode'],
  },
  {
    canonicalId: 'currency',
    name: 'Currency',
    description: 'A currency, by its ISO 4217 code (canonical values); names and unambiguous symbols are aliases.',
    conceptClassification: 'dimension',
    conceptKind: 'standard',
    schemaFieldName: 'currency',
    schemaType: 'text',
    schemaSubtype: null,
    suggestedRole: 'attribute',
    tags: ['commerce', 'money', 'iso-4217'],
    valueMappings: CURRENCIES.map(([code, name, aliases = []]) => mapping(code, [name, ...aliases])),
    metadata: { codeStandard: 'ISO 4217' },
    fieldNames: ['currency', 'currency_code', 'currencyCode', 'currencies'],
  },
  measure('revenue', 'Revenue', 'revenue', 'Money received from sales, in the currency of the data (see Currency).', 'decimal', { unitKind: 'currency', higherIsBetter: true, valueClass: 'continuous' }, ['revenue', 'rev', 'sales', 'turnover']),
  measure('amount', 'Amount', 'amount', 'The money amount of a transaction or line, in the currency of the data (see Currency).', 'decimal', { unitKind: 'currency', valueClass: 'continuous' }, ['amount', 'amt', 'amounts']),
  { ...measure('price', 'Price', 'unit_price', 'The price of one unit of a product, in the currency of the data (see Currency).', 'decimal', { unitKind: 'currency', valueClass: 'continuous' }, ['price', 'unit_price', 'unitPrice', 'prices']), suggestedRole: 'source' },
  measure('quantity', 'Quantity', 'quantity', 'How many units of a product: ordered, sold or in stock.', 'integer', { unit: 'item', unitKind: 'count', valueClass: 'discrete' }, ['quantity', 'qty', 'units', 'quantities']),
];

export const COMMERCE_1_0_0: OntologyLibrary = {
  id: 'causa.commerce',
  version: '1.0.0',
  name: 'Commerce',
  description: 'Standard concepts of retail and e-commerce data: customers, products, orders and stores, order dates, countries (ISO 3166-1), US states, currencies (ISO 4217), email addresses, and revenue, amounts, prices and quantities.',
  concepts: CONCEPTS,
};
