/**
 * The question families the service answers, by `type`: the built-in folders, and any registered at start-up
 * (a family is a folder with its definition and engine; nothing shared is edited to add one).
 */
import type { TwinType } from '../../schemas/twins.js';
import anomalyDetection from './anomaly-detection/index.js';
import causalHealthMonitor from './causal-health-monitor/index.js';
import counterfactual from './counterfactual/index.js';
import explanation from './explanation/index.js';
import forecast from './forecast/index.js';
import type { FamilyDefinition } from './family.js';
import intervention from './intervention/index.js';
import optimisation from './optimisation/index.js';
import panelCounterfactual from './panel-counterfactual/index.js';
import panelExplanation from './panel-explanation/index.js';
import panelIntervention from './panel-intervention/index.js';
import panelOptimisation from './panel-optimisation/index.js';
import prediction from './prediction/index.js';
import rootCauseAnalysis from './root-cause-analysis/index.js';
import staticPanelAnomalyDetection from './static-panel-anomaly-detection/index.js';
import staticPanelRootCauseAnalysis from './static-panel-root-cause-analysis/index.js';
import temporalAnomalyDetection from './temporal-anomaly-detection/index.js';
import temporalCounterfactual from './temporal-counterfactual/index.js';
import temporalExplanation from './temporal-explanation/index.js';
import temporalIntervention from './temporal-intervention/index.js';
import temporalOptimisation from './temporal-optimisation/index.js';
import temporalRootCauseAnalysis from './temporal-root-cause-analysis/index.js';

const families = new Map<string, FamilyDefinition>();

export function registerFamily(definition: FamilyDefinition): void {
  if (families.has(definition.type)) throw new Error(`question family ${definition.type} is registered twice`);
  families.set(definition.type, definition);
}

export const familyOf = (type: string): FamilyDefinition | undefined => families.get(type);

/** The families a twin kind answers, in registration order. */
export const familiesOf = (twinType: TwinType): FamilyDefinition[] => [...families.values()].filter((family) => family.twinKinds.includes(twinType));

export const registeredFamilies = (): FamilyDefinition[] => [...families.values()];

for (const family of [prediction, intervention, optimisation, counterfactual, explanation, rootCauseAnalysis, anomalyDetection, forecast, temporalIntervention, temporalOptimisation, temporalCounterfactual, temporalExplanation, temporalRootCauseAnalysis, temporalAnomalyDetection, causalHealthMonitor,
  panelIntervention, panelOptimisation, panelCounterfactual, panelExplanation, staticPanelRootCauseAnalysis, staticPanelAnomalyDetection]) registerFamily(family);

/** The scenario-from-query readers of a twin kind's families, most specific wording first. */
export const queryReaders = (twinType: TwinType) => familiesOf(twinType).flatMap((family) => family.fromQuery ?? []).sort((a, b) => a.order - b.order).map((reader) => reader.parse);
