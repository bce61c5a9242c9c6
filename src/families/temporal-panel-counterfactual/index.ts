import { TemporalPanelCounterfactualScenarioSchema } from '../../../schemas/simulations.js';
import base from '../temporal-counterfactual/index.js';
import { panelFamily } from '../shared/panel.js';

/** Best action in each environment's history (spec: panel_counterfactual on temporal panels). */
export default panelFamily(base, 'panel_counterfactual', TemporalPanelCounterfactualScenarioSchema, new URL('./engine.js', import.meta.url).href, 'multi-environment-temporal');
