import { PanelInterventionScenarioSchema } from '../../../schemas/simulations.js';
import base from '../intervention/index.js';
import { panelFamily } from '../shared/panel.js';

/** What if, in each environment of a multi-environment static twin, combined by rows (spec: panel_intervention). */
export default panelFamily(base, 'panel_intervention', PanelInterventionScenarioSchema, new URL('./engine.js', import.meta.url).href);
