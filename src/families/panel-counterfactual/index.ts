import { PanelCounterfactualScenarioSchema } from '../../../schemas/simulations.js';
import base from '../counterfactual/index.js';
import { panelFamily } from '../shared/panel.js';

/** Best action in each environment (spec: panel_counterfactual). */
export default panelFamily(base, 'panel_counterfactual', PanelCounterfactualScenarioSchema, new URL('./engine.js', import.meta.url).href);
