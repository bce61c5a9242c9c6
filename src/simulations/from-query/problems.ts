/**
 * The 422 answers of scenario-from-query: each says which words could not be mapped and what would have been
 * accepted, located at the request's `query` member.
 */
import { AppError } from '../../errors.js';

/** Long variable lists are cut in messages; the twin's page lists them all. */
const LISTED_MAX = 40;

export function unmappable(message: string): AppError {
  return new AppError('validation_failed', message, { errors: [{ location: 'body/query', message }] });
}

export function listOf(names: readonly string[]): string {
  const shown = names.slice(0, LISTED_MAX).join(', ');
  return names.length > LISTED_MAX ? `${shown} and ${names.length - LISTED_MAX} more` : shown;
}

export function unknownVariable(phrase: string, names: readonly string[]): AppError {
  return unmappable(`No variable of this twin matches "${phrase}"; variables are: ${listOf(names)}`);
}

export function unknownCategory(variable: string, phrase: string, categories: readonly string[]): AppError {
  return unmappable(`${variable} has no category "${phrase}"; its categories are: ${listOf(categories)}`);
}

export function ambiguousVariable(phrase: string, candidates: readonly string[]): AppError {
  return unmappable(`"${phrase}" could mean any of ${listOf(candidates)}; name the variable in full`);
}

/** A twin's variables as the examples need them (reader.ts's QueryContext; not imported, as reader.ts imports this). */
interface NamedVariables {
  variables: readonly { name: string; type: string; role?: string | null }[];
}

/** The twin's own names for the examples a 422 suggests: a numeric cause (a source if roles say) and effect. */
export function exampleVariables(context: NamedVariables): { cause: string; effect: string } {
  const numeric = context.variables.filter((v) => v.type === 'continuous');
  const cause = (numeric.find((v) => v.role === 'source') ?? numeric[0])?.name ?? context.variables[0]?.name ?? 'price';
  const effect = (numeric.find((v) => v.role === 'target') ?? numeric[numeric.length - 1])?.name ?? cause;
  return { cause, effect };
}
