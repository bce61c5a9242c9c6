/** Time budget, abort and progress for a long engine run: checked between kernel batches, never inside one. */
import type { WorkHooks } from '../types.js';

export class AbortError extends Error {
  constructor(message = 'the work was aborted') {
    super(message);
    this.name = 'AbortError';
  }
}

export class WorkBudget {
  readonly startedAt = performance.now();
  private readonly deadline: number;
  timedOut = false;

  constructor(
    timeBudgetMs: number,
    private readonly hooks: WorkHooks = {},
  ) {
    this.deadline = this.startedAt + timeBudgetMs;
  }

  /** Throws AbortError when the caller asked to stop; answers true (and remembers it) once the budget is spent. */
  checkpoint(): boolean {
    if (this.hooks.aborted?.() === true) throw new AbortError();
    if (!this.timedOut && performance.now() > this.deadline) this.timedOut = true;
    return this.timedOut;
  }

  progress(fraction: number, state: string): void {
    this.hooks.progress?.(Math.min(1, Math.max(0, fraction)), state);
  }

  get elapsedMs(): number {
    return performance.now() - this.startedAt;
  }
}
