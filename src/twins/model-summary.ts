import type { Node, Relationship } from '../../schemas/twins.js';
import type { CbnModel, NodeModel } from '../engine/types.js';

const fmt = (value: number) => Number(value.toPrecision(4)).toString();

/** The version's `nodes` from a fitted model: type, categories, the fitted mechanism as an equation, parent impacts. */
export function describeNodes(model: CbnModel): Node[] {
  const byName = new Map(model.nodes.map((node) => [node.name, node]));
  return model.nodes.map((node) => ({
    name: node.name,
    nodeType: 'observed',
    type: node.kind,
    categories: node.kind === 'categorical' ? node.categories : null,
    latentClusterId: null,
    environmentColumns: [],
    isDerived: false,
    symbolicEquation: equationOf(node),
    derivedInfo: null,
    parentImpacts: Object.fromEntries(node.parents.map((parent) => [parent, impactOf(node, byName.get(parent))]).filter((e): e is [string, number] => e[1] !== null)),
  }));
}

/**
 * Standardised impact of a parent on a node: for a continuous node, the coefficient scaled by the parent's and the
 * node's standard deviations (the largest indicator coefficient for a categorical parent); null where the model
 * has no single number for it (categorical nodes: the discovery strength stands).
 */
function impactOf(node: NodeModel, parent: NodeModel | undefined): number | null {
  if (node.kind !== 'continuous' || parent === undefined || node.std === 0) return null;
  let best = 0;
  node.terms.forEach((term, i) => {
    if (term.parents.length !== 1 || term.parents[0] !== parent.name) return;
    const coefficient = node.coefficients[i] ?? 0;
    const scaled = term.kind === 'linear' && parent.kind === 'continuous' ? (coefficient * parent.std) / node.std : term.kind === 'indicator' ? coefficient / node.std : 0;
    if (Math.abs(scaled) > Math.abs(best)) best = scaled;
  });
  return Number(best.toFixed(6));
}

function equationOf(node: NodeModel): string {
  if (node.kind === 'categorical') {
    if (node.parents.length === 0) return `${node.name} ~ Categorical(${node.marginal.map(fmt).join(', ')})`;
    return node.cpt !== undefined ? `${node.name} ~ CPT(${node.parents.join(', ')})` : `${node.name} ~ softmax(${node.parents.join(', ')})`;
  }
  const terms = node.terms.map((term, i) => {
    const coefficient = fmt(node.coefficients[i] ?? 0);
    if (term.kind === 'indicator') return `${coefficient}*[${term.parents[0]}=${term.category}]`;
    if (term.kind === 'square') return `${coefficient}*${term.parents[0]}^2`;
    if (term.kind === 'product') return `${coefficient}*${term.parents.join('*')}`;
    return `${coefficient}*${term.parents[0]}`;
  });
  return `${node.name} = ${[fmt(node.intercept), ...terms].join(' + ').replaceAll('+ -', '- ')} + N(0, ${fmt(node.noiseStd)}^2)`;
}

/** Roots (no parents) are the levers and drivers; sinks (no children) are the outcomes. */
export function variableRoles(variables: string[], edges: Array<{ source: string; target: string }>): { sources: string[]; targets: string[] } {
  const hasParent = new Set(edges.map((e) => e.target));
  const hasChild = new Set(edges.map((e) => e.source));
  const connected = variables.filter((v) => hasParent.has(v) || hasChild.has(v));
  return { sources: connected.filter((v) => !hasParent.has(v)), targets: connected.filter((v) => !hasChild.has(v)) };
}

/** Replaces measured strengths by the fitted model's impacts where it has one. */
export function withFittedStrengths<E extends Omit<Relationship, 'orientation'>>(graph: readonly E[], model: CbnModel): E[] {
  const byName = new Map(model.nodes.map((node) => [node.name, node]));
  return graph.map((edge) => {
    const child = byName.get(edge.target);
    const impact = child === undefined ? null : impactOf(child, byName.get(edge.source));
    return impact === null ? edge : { ...edge, strength: impact, strengthStatus: 'measured' };
  });
}
