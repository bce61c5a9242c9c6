import { TemporalPanelInterventionScenarioSchema } from '../../../schemas/simulations.js';
import base from '../temporal-intervention/index.js';
import { panelFamily } from '../shared/panel.js';

/** What if over time, in each environment of a multi-environment temporal twin (spec: panel_intervention). */
export default panelFamily(base, 'panel_intervention', TemporalPanelInterventionScenarioSchema, new URL('./engine.js', import.meta.url).href, 'multi-environment-temporal');
