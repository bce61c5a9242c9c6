import { runIntervention } from '../../engine/inference/intervention.js';
import type { InterventionScenario } from '../../engine/inference/scenario.js';
import type { CbnModel } from '../../engine/types.js';
import type { FamilyEngine } from '../../engine/inference/outcome.js';

export default { run: runIntervention } satisfies FamilyEngine<CbnModel, InterventionScenario>;
