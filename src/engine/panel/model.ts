/**
 * A multi-environment (panel) model: the pooled causal Bayesian network, and per environment the parameters
 * where its mechanisms differ, partially pooled towards the shared ones (pooling.ts). Only the parameters are kept
 * per environment (the graph, the terms and the residual shape are shared), so a panel of hundreds of
 * environments stays small; `environmentModel` assembles one environment's network.
 */
import type { CbnModel, NodeModel } from '../types.js';

type Continuous = Extract<NodeModel, { kind: 'continuous' }>;

/** One node's parameters in one environment. */
export type NodeOverride =
  | Pick<Continuous, 'intercept' | 'coefficients' | 'noiseStd' | 'mean' | 'std' | 'coefficientCovariance'> & { kind: 'continuous' }
  | { kind: 'categorical'; table: number[][]; rowCounts: number[]; smoothing: number };

export interface PanelEnvironment {
  key: string;
  nRows: number;
  /** By node name; a node absent here uses the pooled mechanism in this environment. */
  nodes: Record<string, NodeOverride>;
}

export interface PanelModel {
  kind: 'panel';
  environmentColumns: string[];
  /** Fitted on every environment's rows together (the combined answers use it where no environment is named). */
  pooled: CbnModel;
  environments: PanelEnvironment[];
}

export const isPanelModel = (model: unknown): model is PanelModel => (model as { kind?: unknown } | null)?.kind === 'panel';

/** The network of one environment: the pooled graph with the environment's parameters. */
export function environmentModel(panel: Pick<PanelModel, 'pooled' | 'environments'>, key: string): CbnModel {
  const environment = panel.environments.find((e) => e.key === key);
  if (environment === undefined) throw new Error(`environment ${key} is not in the panel`);
  return {
    nodes: panel.pooled.nodes.map((node): NodeModel => {
      const override = environment.nodes[node.name];
      if (override === undefined) return node;
      if (override.kind === 'continuous' && node.kind === 'continuous') {
        const { kind: _kind, coefficientCovariance, ...parameters } = override;
        const { coefficientCovariance: _pooled, ...shared } = node;
        return { ...shared, ...parameters, ...(coefficientCovariance === undefined ? {} : { coefficientCovariance }) };
      }
      if (override.kind === 'categorical' && node.kind === 'categorical' && node.cpt !== undefined) {
        return { ...node, cpt: { ...node.cpt, table: override.table, rowCounts: override.rowCounts, smoothing: override.smoothing } };
      }
      return node;
    }),
  };
}
