import { runOptimisation } from '../../engine/inference/optimisation.js';
import type { OptimisationScenario } from '../../engine/inference/scenario.js';
import type { CbnModel } from '../../engine/types.js';
import type { FamilyEngine } from '../../engine/inference/outcome.js';

export default { run: runOptimisation } satisfies FamilyEngine<CbnModel, OptimisationScenario>;
