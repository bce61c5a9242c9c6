import type { FamilyEngine } from '../../engine/inference/outcome.js';
import { runTemporalIntervention } from '../../engine/temporal/intervention.js';
import type { TemporalModel } from '../../engine/temporal/model.js';
import type { TemporalInterventionScenario } from '../../engine/temporal/scenario.js';

export default { run: runTemporalIntervention } satisfies FamilyEngine<TemporalModel, TemporalInterventionScenario>;
