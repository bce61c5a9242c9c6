import type { FamilyEngine } from '../../engine/inference/outcome.js';
import { runTemporalCounterfactual } from '../../engine/temporal/counterfactual.js';
import type { TemporalModel } from '../../engine/temporal/model.js';
import type { TemporalCounterfactualScenario } from '../../engine/temporal/scenario.js';

export default { run: runTemporalCounterfactual } satisfies FamilyEngine<TemporalModel, TemporalCounterfactualScenario>;
