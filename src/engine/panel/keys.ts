/**
 * Environment keys (the spec's multi-environment twins; schemas/environments.ts ENVIRONMENT_KEY_FORM), shared by
 * learning, the environments endpoints and the panel questions that route rows to their environment.
 */

/**
 * The string form of an environment: `column=value` per environment column, in the twin's column order, joined by
 * `;` (`region=north;store=12`). `%`, `;` and `=` inside names and values are percent-encoded, so a key parses back
 * unambiguously; values are the cells as text (numbers in their shortest form).
 */
/** The frame column a batch's rows carry their environment in (codes into the panel's environment keys; -1 for a
 * row naming no environment of the twin): a reserved name no variable has. */
export const ROW_ENVIRONMENT = '\u27e8environment\u27e9';

export function environmentKey(columns: readonly string[], values: Readonly<Record<string, string>>): string {
  return columns.map((column) => `${escapeKeyPart(column)}=${escapeKeyPart(values[column] ?? '')}`).join(';');
}

export function parseEnvironmentKey(key: string): Record<string, string> | null {
  const values: Record<string, string> = {};
  for (const part of key.split(';')) {
    const at = part.indexOf('=');
    if (at < 0 || part.indexOf('=', at + 1) >= 0) return null;
    try {
      values[decodeURIComponent(part.slice(0, at))] = decodeURIComponent(part.slice(at + 1));
    } catch {
      return null;
    }
  }
  return values;
}

const escapeKeyPart = (text: string) => text.replace(/[%;=]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

/** The environment a record names with its environment columns (cells as text, numbers in their shortest form). */
export function rowEnvironment(row: Readonly<Record<string, unknown>>, columns: readonly string[]): string {
  return environmentKey(columns, Object.fromEntries(columns.map((column) => [column, String(row[column] ?? '')])));
}
