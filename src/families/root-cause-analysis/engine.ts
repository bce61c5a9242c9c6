import { runRootCauseAnalysis } from '../../engine/inference/root-cause.js';
import type { RootCauseScenario } from '../../engine/inference/scenario.js';
import type { CbnModel } from '../../engine/types.js';
import type { FamilyEngine } from '../../engine/inference/outcome.js';

export default { run: runRootCauseAnalysis } satisfies FamilyEngine<CbnModel, RootCauseScenario>;
