import { runPrediction } from '../../engine/inference/prediction.js';
import type { PredictionScenario } from '../../engine/inference/scenario.js';
import { isPanelModel, type PanelModel } from '../../engine/panel/model.js';
import { perEnvironment } from '../../engine/panel/questions.js';
import type { CbnModel } from '../../engine/types.js';
import type { FamilyEngine } from '../../engine/inference/outcome.js';

const perPlace = perEnvironment<PredictionScenario>({ run: runPrediction } as FamilyEngine<CbnModel, never>, 'prediction', { artifacts: true });

/** A static twin's network, or each environment's of a panel. */
export default {
  run: (model, scenario, context) => (isPanelModel(model) ? perPlace.run(model, scenario, context) : runPrediction(model, scenario, context)),
} satisfies FamilyEngine<CbnModel | PanelModel, PredictionScenario>;
