import type { QueryContext } from '../../../src/simulations/from-query/index.js';

/**
 * A retail twin: price, discount and marketing spend are levers, region drives plan, and churn, revenue and cost
 * are outcomes. Roles as the version's variableRoles would give them (plan and tenure are neither).
 */
export const retail: QueryContext = {
  variables: [
    { name: 'price', type: 'continuous', role: 'source' },
    { name: 'discount', type: 'continuous', role: 'source' },
    { name: 'marketing_spend', type: 'continuous', role: 'source' },
    { name: 'region', type: 'categorical', categories: ['North', 'South', 'East'], role: 'source' },
    { name: 'plan', type: 'categorical', categories: ['basic', 'premium'], role: null },
    { name: 'tenure', type: 'continuous', role: 'source' },
    { name: 'churn', type: 'continuous', role: null },
    { name: 'revenue', type: 'continuous', role: 'target' },
    { name: 'cost', type: 'continuous', role: 'target' },
  ],
  edges: [
    { source: 'price', target: 'churn' },
    { source: 'discount', target: 'churn' },
    { source: 'region', target: 'plan' },
    { source: 'plan', target: 'churn' },
    { source: 'tenure', target: 'churn' },
    { source: 'churn', target: 'revenue' },
    { source: 'price', target: 'revenue' },
    { source: 'marketing_spend', target: 'revenue' },
    { source: 'marketing_spend', target: 'cost' },
    { source: 'discount', target: 'cost' },
  ],
};

/** An operations twin with names written the way exports write them, and no roles (the graph's roots are sources). */
export const operations: QueryContext = {
  variables: [
    { name: 'CPUUsage', type: 'continuous' },
    { name: 'memory_pct', type: 'continuous' },
    { name: 'avgLatencyMs', type: 'continuous' },
    { name: 'error-rate', type: 'continuous' },
    { name: 'deploy', type: 'categorical', categories: ['yes', 'no'] },
    { name: 'base_price', type: 'continuous' },
    { name: 'competitor_price', type: 'continuous' },
    { name: 'operating_expense', type: 'continuous' },
    { name: 'total sales', type: 'continuous' },
    { name: 'segment', type: 'categorical', categories: ['1', '2', '3'] },
  ],
  edges: [
    { source: 'deploy', target: 'CPUUsage' },
    { source: 'CPUUsage', target: 'avgLatencyMs' },
    { source: 'memory_pct', target: 'avgLatencyMs' },
    { source: 'avgLatencyMs', target: 'error-rate' },
    { source: 'base_price', target: 'total sales' },
    { source: 'competitor_price', target: 'total sales' },
  ],
};

/**
 * A twin named with letters, as toy and generated twins are: `a` is also the English article, so the parser must
 * read it as the variable where a variable goes and as the article elsewhere. No roles: a and b are the roots.
 */
export const lettered: QueryContext = {
  variables: [
    { name: 'a', type: 'continuous' },
    { name: 'b', type: 'categorical', categories: ['x', 'y'] },
    { name: 'c', type: 'continuous' },
  ],
  edges: [{ source: 'a', target: 'c' }],
};

/** The lettered twin with its cause renamed, e.g. to another grammar word ("it", "to", "is"). */
export function letteredWith(cause: string): QueryContext {
  return {
    variables: lettered.variables.map((v) => (v.name === 'a' ? { ...v, name: cause } : v)),
    edges: [{ source: cause, target: 'c' }],
  };
}

/** The retail twin with a variable `a` as well: its queries' English articles must read as before. */
export const retailWithA: QueryContext = { ...retail, variables: [...retail.variables, { name: 'a', type: 'continuous' }] };
