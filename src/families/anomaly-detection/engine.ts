import { runAnomalyDetection } from '../../engine/inference/anomaly.js';
import type { AnomalyScenario } from '../../engine/inference/scenario.js';
import type { CbnModel } from '../../engine/types.js';
import type { FamilyEngine } from '../../engine/inference/outcome.js';

export default { run: runAnomalyDetection } satisfies FamilyEngine<CbnModel, AnomalyScenario>;
