/** What a family parser answers: the scenario and how it read the query, in one sentence. */
export interface Parsed<S extends { type: string } = { type: string }> {
  scenario: S;
  interpretation: string;
}
