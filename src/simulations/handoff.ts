/**
 * Scenarios handed from a submit to the run in the same process: a run started here soon after its submit takes
 * the scenario already parsed and validated instead of reading and parsing its stored text again (a 100k-row
 * batch costs a read of megabytes and a parse of about 150 ms). A run in another process, or one whose scenario
 * was evicted, reads the stored text: the handoff only saves work, it is never the record.
 */
const KEPT = 16;

export class ScenarioHandoff {
  private readonly scenarios = new Map<string, unknown>();

  put(runId: string, scenario: unknown): void {
    this.scenarios.set(runId, scenario);
    // Runs cancelled or claimed elsewhere never take theirs: the oldest go first.
    for (const oldest of this.scenarios.keys()) {
      if (this.scenarios.size <= KEPT) break;
      this.scenarios.delete(oldest);
    }
  }

  /** The scenario of a run, once; undefined when it is not here. */
  take(runId: string): unknown {
    const scenario = this.scenarios.get(runId);
    this.scenarios.delete(runId);
    return scenario;
  }
}
