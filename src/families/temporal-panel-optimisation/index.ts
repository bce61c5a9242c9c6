import { TemporalPanelOptimisationScenarioSchema } from '../../../schemas/simulations.js';
import base from '../temporal-optimisation/index.js';
import { panelFamily } from '../shared/panel.js';

/** The best plan over time in each environment of a multi-environment temporal twin (spec: panel_optimisation). */
export default panelFamily(base, 'panel_optimisation', TemporalPanelOptimisationScenarioSchema, new URL('./engine.js', import.meta.url).href, 'multi-environment-temporal');
