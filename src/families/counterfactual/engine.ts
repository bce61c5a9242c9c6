import { runCounterfactual } from '../../engine/inference/counterfactual.js';
import type { CounterfactualScenario } from '../../engine/inference/scenario.js';
import type { CbnModel } from '../../engine/types.js';
import type { FamilyEngine } from '../../engine/inference/outcome.js';

export default { run: runCounterfactual } satisfies FamilyEngine<CbnModel, CounterfactualScenario>;
