import { PanelOptimisationScenarioSchema } from '../../../schemas/simulations.js';
import base from '../optimisation/index.js';
import { panelFamily } from '../shared/panel.js';

/** The best settings in each environment, combined by rows (spec: panel_optimisation). */
export default panelFamily(base, 'panel_optimisation', PanelOptimisationScenarioSchema, new URL('./engine.js', import.meta.url).href);
