import { PanelAnomalyScenarioSchema } from '../../../schemas/simulations.js';
import base from '../temporal-anomaly-detection/index.js';
import { panelWindowFamily } from '../shared/panel.js';

/** Anomaly scan over time in each environment: samples shared by all environments or panelSamples per key (spec: panel_anomaly_detection). */
export default panelWindowFamily(base, 'panel_anomaly_detection', PanelAnomalyScenarioSchema, new URL('./engine.js', import.meta.url).href, true);
