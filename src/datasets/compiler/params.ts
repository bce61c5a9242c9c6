/**
 * Query parameters of one compiled query. Every value a client sent reaches the engine as a bound parameter
 * ({name:Type}), never as SQL text.
 */
export class Params {
  readonly values: Record<string, unknown> = {};
  private next = 0;

  constructor(private readonly prefix = 'p') {}

  /** Binds a value and answers the placeholder to put in the SQL. `type` is chosen by the compiler. */
  bind(value: unknown, type: string): string {
    const name = `${this.prefix}${this.next++}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }
}
