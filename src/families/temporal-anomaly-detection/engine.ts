import type { FamilyEngine } from '../../engine/inference/outcome.js';
import { runTemporalAnomaly } from '../../engine/temporal/anomaly.js';
import type { TemporalModel } from '../../engine/temporal/model.js';
import type { TemporalAnomalyScenario } from '../../engine/temporal/scenario.js';

export default { run: runTemporalAnomaly } satisfies FamilyEngine<TemporalModel, TemporalAnomalyScenario>;
