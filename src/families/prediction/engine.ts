import { runPrediction } from '../../engine/inference/prediction.js';
import type { PredictionScenario } from '../../engine/inference/scenario.js';
import type { CbnModel } from '../../engine/types.js';
import type { FamilyEngine } from '../../engine/inference/outcome.js';

export default { run: runPrediction } satisfies FamilyEngine<CbnModel, PredictionScenario>;
