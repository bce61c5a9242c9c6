import { runExplanation } from '../../engine/inference/explanation.js';
import type { ExplanationScenario } from '../../engine/inference/scenario.js';
import type { CbnModel } from '../../engine/types.js';
import type { FamilyEngine } from '../../engine/inference/outcome.js';

export default { run: runExplanation } satisfies FamilyEngine<CbnModel, ExplanationScenario>;
