import type { FamilyEngine } from '../../engine/inference/outcome.js';
import type { TemporalModel } from '../../engine/temporal/model.js';
import { runTemporalOptimisation } from '../../engine/temporal/optimisation.js';
import type { TemporalOptimisationScenario } from '../../engine/temporal/scenario.js';

export default { run: runTemporalOptimisation } satisfies FamilyEngine<TemporalModel, TemporalOptimisationScenario>;
