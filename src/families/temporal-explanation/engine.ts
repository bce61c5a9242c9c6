import type { FamilyEngine } from '../../engine/inference/outcome.js';
import { runTemporalExplanation } from '../../engine/temporal/explanation.js';
import type { TemporalModel } from '../../engine/temporal/model.js';
import type { TemporalExplanationScenario } from '../../engine/temporal/scenario.js';

export default { run: runTemporalExplanation } satisfies FamilyEngine<TemporalModel, TemporalExplanationScenario>;
