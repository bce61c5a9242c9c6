import type { FamilyEngine } from '../../engine/inference/outcome.js';
import { runForecast } from '../../engine/temporal/forecast.js';
import type { TemporalModel } from '../../engine/temporal/model.js';
import type { ForecastScenario } from '../../engine/temporal/scenario.js';

export default { run: runForecast } satisfies FamilyEngine<TemporalModel, ForecastScenario>;
