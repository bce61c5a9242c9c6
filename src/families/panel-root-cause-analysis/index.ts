import { PanelRootCauseScenarioSchema } from '../../../schemas/simulations.js';
import base from '../temporal-root-cause-analysis/index.js';
import { panelWindowFamily } from '../shared/panel.js';

/** Root causes over time in each environment, on a shared window or each its own (spec: panel_root_cause_analysis). */
export default panelWindowFamily(base, 'panel_root_cause_analysis', PanelRootCauseScenarioSchema, new URL('./engine.js', import.meta.url).href, true);
