import { StaticPanelRootCauseScenarioSchema } from '../../../schemas/simulations.js';
import base from '../root-cause-analysis/index.js';
import { panelFamily } from '../shared/panel.js';

/** Root causes in each environment (spec: static_panel_root_cause_analysis). */
export default panelFamily(base, 'static_panel_root_cause_analysis', StaticPanelRootCauseScenarioSchema, new URL('./engine.js', import.meta.url).href);
