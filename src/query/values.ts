import type { Params } from '../datasets/compiler/params.js';
import { type TenantSql, quoteColumn } from '../store/data/port.js';
import type { CatalogDataset } from './plan.js';

/**
 * A dataset's relation as the query reads it: each text column whose field mapping has a value map (an
 * enrichment's, or extraction's for its most frequent values) holds the concept's canonical values, so that "NY"
 * and "New York" group, filter and join as one value. The maps are bound parameters, never SQL text.
 */
export function canonicalRelation(dataset: CatalogDataset, relation: (tenant: TenantSql) => string, params: Params): (tenant: TenantSql) => string {
  const replaced = dataset.columns.flatMap((column) => {
    if (column.valueMap === null || (column.type !== 'text' && column.type !== 'categorical')) return [];
    const entries = Object.entries(column.valueMap);
    const name = quoteColumn(column.name);
    const from = params.bind(entries.map(([written]) => written), 'Array(String)');
    const to = params.bind(entries.map(([, canonical]) => canonical), 'Array(String)');
    return [`transform(${name}, ${from}, ${to}, ${name}) AS ${name}`];
  });
  if (replaced.length === 0) return relation;
  return (tenant) => `SELECT * REPLACE (${replaced.join(', ')}) FROM (${relation(tenant)})`;
}
