import type { FamilyEngine } from '../../engine/inference/outcome.js';
import { runHealthMonitor } from '../../engine/temporal/health.js';
import type { TemporalModel } from '../../engine/temporal/model.js';
import type { HealthMonitorScenario } from '../../engine/temporal/scenario.js';

export default { run: runHealthMonitor } satisfies FamilyEngine<TemporalModel, HealthMonitorScenario>;
