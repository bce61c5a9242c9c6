import { TemporalPanelExplanationScenarioSchema } from '../../../schemas/simulations.js';
import base from '../temporal-explanation/index.js';
import { panelFamily } from '../shared/panel.js';

/** Why over time, in each environment (spec: panel_explanation on temporal panels). */
export default panelFamily(base, 'panel_explanation', TemporalPanelExplanationScenarioSchema, new URL('./engine.js', import.meta.url).href, 'multi-environment-temporal');
