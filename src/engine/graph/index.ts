/** The graph helpers other parts of the service use, by name. */
export { dagToCpdag, cpdagOfDag } from './cpdag.js';
export { structuralHammingDistance, skeletonF1, skeletonScores } from './metrics.js';
export { topologicalOrder, topologicalSort, hasDirectedCycle, reaches, consistentExtension } from './dag.js';
export { applyMeekRules } from './meek.js';
export type { Pdag, PdagEdge } from './pdag.js';
export { pdagFromEdges, pdagToEdges } from './pdag.js';
