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
import panelAnomalyDetection from './panel-anomaly-detection/index.js';
import panelCausalHealthMonitor from './panel-causal-health-monitor/index.js';
import panelExplanation from './panel-explanation/index.js';
import panelForecast from './panel-forecast/index.js';
import panelIntervention from './panel-intervention/index.js';
import panelOptimisation from './panel-optimisation/index.js';
import panelRootCauseAnalysis from './panel-root-cause-analysis/index.js';
import prediction from './prediction/index.js';
import rootCauseAnalysis from './root-cause-analysis/index.js';
import staticPanelAnomalyDetection from './static-panel-anomaly-detection/index.js';
import staticPanelRootCauseAnalysis from './static-panel-root-cause-analysis/index.js';
import temporalAnomalyDetection from './temporal-anomaly-detection/index.js';
import temporalCounterfactual from './temporal-counterfactual/index.js';
import temporalExplanation from './temporal-explanation/index.js';
import temporalIntervention from './temporal-intervention/index.js';
import temporalOptimisation from './temporal-optimisation/index.js';
import temporalPanelCounterfactual from './temporal-panel-counterfactual/index.js';
import temporalPanelExplanation from './temporal-panel-explanation/index.js';
import temporalPanelIntervention from './temporal-panel-intervention/index.js';
import temporalPanelOptimisation from './temporal-panel-optimisation/index.js';
import temporalRootCauseAnalysis from './temporal-root-cause-analysis/index.js';

/** By type: one definition per set of twin kinds (a type such as panel_intervention is answered by static and temporal panels, each with its own members). */
const families = new Map<string, FamilyDefinition[]>();

export function registerFamily(definition: FamilyDefinition): void {
  const same = families.get(definition.type) ?? [];
  if (same.some((other) => other.twinKinds.some((kind) => definition.twinKinds.includes(kind)))) throw new Error(`question family ${definition.type} is registered twice for one twin kind`);
  families.set(definition.type, [...same, definition]);
}

/** The definition of a type for a twin kind (without a kind, or when no definition is for it: the first registered). */
export const familyOf = (type: string, twinType?: TwinType): FamilyDefinition | undefined => {
  const all = families.get(type);
  return (twinType === undefined ? undefined : all?.find((family) => family.twinKinds.includes(twinType))) ?? all?.[0];
};

/** The families a twin kind answers, in registration order. */
export const familiesOf = (twinType: TwinType): FamilyDefinition[] => registeredFamilies().filter((family) => family.twinKinds.includes(twinType));

export const registeredFamilies = (): FamilyDefinition[] => [...families.values()].flat();

for (const family of [prediction, intervention, optimisation, counterfactual, explanation, rootCauseAnalysis, anomalyDetection, forecast, temporalIntervention, temporalOptimisation, temporalCounterfactual, temporalExplanation, temporalRootCauseAnalysis, temporalAnomalyDetection, causalHealthMonitor,
  panelIntervention, panelOptimisation, panelCounterfactual, panelExplanation, staticPanelRootCauseAnalysis, staticPanelAnomalyDetection,
  panelForecast, temporalPanelIntervention, temporalPanelOptimisation, temporalPanelCounterfactual, temporalPanelExplanation, panelRootCauseAnalysis, panelAnomalyDetection, panelCausalHealthMonitor]) registerFamily(family);

/** The scenario-from-query readers of a twin kind's families, most specific wording first. */
export const queryReaders = (twinType: TwinType) => familiesOf(twinType).flatMap((family) => family.fromQuery ?? []).sort((a, b) => a.order - b.order).map((reader) => reader.parse);
