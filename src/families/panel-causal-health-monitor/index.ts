import { PanelHealthMonitorScenarioSchema } from '../../../schemas/simulations.js';
import base from '../causal-health-monitor/index.js';
import { panelWindowFamily } from '../shared/panel.js';

/** Whether each environment's mechanisms still hold, on its own recent data or a given window (spec: panel_causal_health_monitor). */
export default panelWindowFamily(base, 'panel_causal_health_monitor', PanelHealthMonitorScenarioSchema, new URL('./engine.js', import.meta.url).href, false);
