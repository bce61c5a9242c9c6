import type { StaticScenario } from '../../../engine/inference/scenario.js';

/** What a family parser answers: the scenario and how it read the query, in one sentence. */
export interface Parsed<S extends StaticScenario = StaticScenario> {
  scenario: S;
  interpretation: string;
}
