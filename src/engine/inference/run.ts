/** One entry for every static question: the family's runner chosen by the scenario's `type`. */
import type { CbnModel } from '../types.js';
import { runAnomalyDetection } from './anomaly.js';
import { runCounterfactual } from './counterfactual.js';
import { runExplanation } from './explanation.js';
import { runIntervention } from './intervention.js';
import { runOptimisation } from './optimisation.js';
import type { FamilyOutcome, InferenceContext } from './outcome.js';
import { runPrediction } from './prediction.js';
import { runRootCauseAnalysis } from './root-cause.js';
import type { ScoreRequest, StaticScenario } from './scenario.js';
import { runScore } from './score.js';

export function runStaticScenario(model: CbnModel, scenario: StaticScenario, context: InferenceContext): Promise<FamilyOutcome> {
  switch (scenario.type) {
    case 'prediction':
      return runPrediction(model, scenario, context);
    case 'intervention':
      return runIntervention(model, scenario, context);
    case 'optimisation':
      return runOptimisation(model, scenario, context);
    case 'counterfactual':
      return runCounterfactual(model, scenario, context);
    case 'explanation':
      return runExplanation(model, scenario, context);
    case 'root_cause_analysis':
      return runRootCauseAnalysis(model, scenario, context);
    case 'anomaly_detection':
      return runAnomalyDetection(model, scenario, context);
  }
}

export function runScoring(model: CbnModel, request: ScoreRequest, context: InferenceContext): Promise<FamilyOutcome> {
  return runScore(model, request, context);
}
