import { PanelExplanationScenarioSchema } from '../../../schemas/simulations.js';
import base from '../explanation/index.js';
import { panelFamily } from '../shared/panel.js';

/** Why, in each environment (spec: panel_explanation). */
export default panelFamily(base, 'panel_explanation', PanelExplanationScenarioSchema, new URL('./engine.js', import.meta.url).href);
