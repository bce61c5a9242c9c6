import type { FamilyEngine } from '../../engine/inference/outcome.js';
import type { TemporalModel } from '../../engine/temporal/model.js';
import { runTemporalRootCause } from '../../engine/temporal/root-cause.js';
import type { TemporalRootCauseScenario } from '../../engine/temporal/scenario.js';

export default { run: runTemporalRootCause } satisfies FamilyEngine<TemporalModel, TemporalRootCauseScenario>;
