import { StaticPanelAnomalyScenarioSchema } from '../../../schemas/simulations.js';
import base from '../anomaly-detection/index.js';
import { panelFamily } from '../shared/panel.js';

/** Anomaly scan in each environment (spec: static_panel_anomaly_detection). */
export default panelFamily(base, 'static_panel_anomaly_detection', StaticPanelAnomalyScenarioSchema, new URL('./engine.js', import.meta.url).href);
