/**
 * scenario-from-query: a plain-English question about a static twin as a scenario ready for POST /simulations,
 * built from the version's own variables, with no external service. The families are tried from the most
 * specific wording to the most general; the first that recognises the query answers, and a query none recognises
 * (or that names what the twin does not have) is a 422 that says what could not be mapped.
 */
import { assertFitsTwin } from './check.js';
import type { Parsed } from './families/parsed.js';
import { exampleVariables, listOf, unmappable } from './problems.js';
import { QueryReader, type QueryContext } from './reader.js';

export type { QueryContext, QueryVariable } from './reader.js';

export interface ScenarioFromQuery {
  scenario: { type: string };
  /** How the query was read, in one sentence, for the user to confirm before submitting. */
  interpretation: string;
  /** The query's phrases that named variables, in query order. */
  matched: { phrase: string; variable: string }[];
}

/** Longer than any question; parsing is linear but the 422 quotes stay readable. */
const QUERY_MAX = 2000;

/**
 * `readers`: the twin kind's family readers (each family's `fromQuery` in the registry), most specific wording
 * first.
 */
export function scenarioFromQuery(query: string, context: QueryContext, readers: readonly ((reader: QueryReader) => Parsed | null)[]): ScenarioFromQuery {
  const text = query.trim();
  if (text === '') throw unmappable(`The query is empty; ask a question about this twin, e.g. ${examples(context)}`);
  if (text.length > QUERY_MAX) throw unmappable(`The query is ${text.length} characters long; ask in at most ${QUERY_MAX}`);
  const hints: string[] = [];
  let named: string[] = [];
  const first = new QueryReader(text, context);
  for (const parse of readers) {
    // Each family reads a fresh copy: what one consumed while failing must not hide words from the next.
    const reader = first.fresh();
    const parsed = parse(reader);
    named = reader.mentions.flatMap((m) => (m.candidates.length === 1 ? m.candidates : []));
    if (parsed === null) {
      hints.push(...reader.hints);
      continue;
    }
    assertFitsTwin(parsed.scenario, context);
    return { ...parsed, matched: matchedOf(reader) };
  }
  const [hint] = hints;
  if (hint !== undefined) throw unmappable(`Could not build a scenario from this query: ${hint}`);
  if (named.length > 0) {
    throw unmappable(`Could not tell what this query asks about ${listOf([...new Set(named)])}; ask e.g. ${examples(context)}`);
  }
  throw unmappable(`This query names no variable of this twin and asks nothing recognisable; variables are: ${listOf(context.variables.map((v) => v.name))}; ask e.g. ${examples(context)}`);
}

function matchedOf(reader: QueryReader): ScenarioFromQuery['matched'] {
  const pairs = reader.mentions.flatMap((m) => (m.candidates.length === 1 ? [{ phrase: m.phrase, variable: m.candidates[0]! }] : []));
  return pairs.filter((p, i) => pairs.findIndex((q) => q.phrase === p.phrase && q.variable === p.variable) === i);
}

/** One question per family, in the twin's own variables. */
function examples(context: QueryContext): string {
  const { cause, effect } = exampleVariables(context);
  return [
    `"what if ${cause} rises 10%"`,
    `"predict ${effect} for ${cause} 12"`,
    `"maximise ${effect}"`,
    `"what would it take for ${effect} to be above 100 for ${cause} 12"`,
    `"what drives ${effect}"`,
    `"why is ${effect} high for ${cause} 12"`,
    `"is this unusual: ${cause} 12"`,
  ].join(', ');
}
