import type { Filter, FilterGroup, OperationConfig } from '../../schemas/datasets.js';

/** An operation in words, for the enriched view of a dataset. */
export function describeOperation(config: OperationConfig): string {
  switch (config.type) {
    case 'filter':
      return `Keep rows where ${describeCondition(config.filterGroup)}`;
    case 'select':
      return `Keep ${config.columns.map((c) => (c.alias ? `${c.column} as ${c.alias}` : c.column)).join(', ')}`;
    case 'rename':
      return `Rename ${config.renames.map((r) => `${r.column} to ${r.to}`).join(', ')}`;
    case 'derive':
      return `Compute ${config.column} = ${config.expression}`;
    case 'join':
      return `${config.how === 'left' ? 'Left join' : 'Join'} source ${config.rightSourceId} on ${config.on.map((p) => `${p.left} = ${p.right}`).join(' and ')}`;
    case 'aggregate': {
      const aggregations = config.aggregations.map((a) => `${a.function}(${a.column})${a.alias ? ` as ${a.alias}` : ''}`).join(', ');
      return config.groupBy.length === 0 ? `Aggregate ${aggregations}` : `Group by ${config.groupBy.join(', ')}: ${aggregations}`;
    }
    case 'sort':
      return `Sort by ${config.keys.map((k) => `${k.column} ${k.direction ?? 'asc'}`).join(', ')}`;
    case 'dedupe':
      return `Keep the ${config.keep ?? 'first'} row of each distinct ${config.columns === undefined ? 'row' : config.columns.join(', ')}`;
  }
}

function describeCondition(entry: Filter | FilterGroup): string {
  if ('booleanOperator' in entry) {
    if (entry.filters.length === 0) return 'always';
    const parts = entry.filters.map((member) => ('booleanOperator' in member ? `(${describeCondition(member)})` : describeCondition(member)));
    return parts.join(` ${entry.booleanOperator} `);
  }
  const value = entry.value === undefined || entry.value === null ? '' : ` ${JSON.stringify(entry.value)}`;
  return `${entry.column} ${entry.comparisonOperator.toLowerCase()}${value}`;
}
