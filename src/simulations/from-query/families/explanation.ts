/**
 * Explanations: "what drives revenue", "why does churn change" (discovery: the causes of an effect); "what does
 * price affect", "the effect of price" (impact: the effects of a cause); "how does price affect churn", "the effect
 * of price on churn", "is churn driven by price" (directional: one cause, one effect). Which role a variable plays
 * follows from the words around it; "the relationship between A and B" is oriented by the twin's graph.
 */
import type { ExplanationScenario } from '../../../engine/inference/scenario.js';
import { orient } from '../graph.js';
import { unknownVariable, unmappable } from '../problems.js';
import type { QueryReader } from '../reader.js';
import * as words from '../vocabulary.js';
import type { Parsed } from './parsed.js';

const OTHER_KEYWORDS = new Set(['why', 'explain', 'relationship', 'relation', 'link', 'connection']);
/** Between a variable and the verb that says what it does ("what does price really affect"). */
const ADVERBS = new Set(['really', 'actually', 'mostly', 'most', 'directly', 'strongly', 'usually']);

interface Named {
  name: string;
  start: number;
  end: number;
}

export function parseExplanation(r: QueryReader): Parsed<ExplanationScenario> | null {
  const keywords = r.tokens.map((_, i) => i).filter((i) => isKeyword(r, i));
  if (keywords.length === 0) return null;
  const named = namedVariables(r);
  if (named.length === 0) {
    for (const at of keywords) {
      const unknown = r.contentAfter(r.is(at + 1, ['of', 'on', 'behind', 'for']) ? at + 2 : at + 1);
      if (unknown !== null) throw unknownVariable(unknown.phrase, r.names);
    }
    return null;
  }
  if (named.length > 2) {
    throw unmappable(`An explanation relates one cause and one effect, or asks for the causes or the effects of one variable; this names ${named.map((n) => n.name).join(', ')}`);
  }
  if (named.length === 2) {
    const [cause, effect] = causeAndEffect(r, named[0]!, named[1]!);
    return {
      scenario: { type: 'explanation', explanationMode: 'directional', causeVariable: cause, effectVariable: effect },
      interpretation: `Measure how ${cause} affects ${effect}.`,
    };
  }
  const only = named[0]!;
  if (asksForEffects(r, only)) {
    return {
      scenario: { type: 'explanation', explanationMode: 'impact', causeVariable: only.name },
      interpretation: `Rank the variables ${only.name} affects by the size of its effect.`,
    };
  }
  return {
    scenario: { type: 'explanation', explanationMode: 'discovery', effectVariable: only.name },
    interpretation: `Rank the causes of ${only.name} by their effect on it.`,
  };
}

function isKeyword(r: QueryReader, at: number): boolean {
  return [words.EXPLAIN_VERBS, words.PASSIVE_VERBS, words.EFFECT_NOUNS, words.CAUSE_NOUNS, words.DEPEND_WORDS, OTHER_KEYWORDS].some((set) => r.is(at, set));
}

function namedVariables(r: QueryReader): Named[] {
  const seen = new Map<string, Named>();
  for (const mention of r.mentions) {
    if (r.isConsumed(mention.start)) continue;
    const name = r.resolve(mention).name;
    if (!seen.has(name)) seen.set(name, { name, start: mention.start, end: mention.end });
  }
  return [...seen.values()];
}

/** The word before a variable, skipping articles. */
function wordBefore(r: QueryReader, at: number): number {
  let i = at - 1;
  while (i >= 0 && r.is(i, words.DETERMINERS)) i--;
  return i;
}

/** "... by price" after a passive verb, or "... on price" after depend: the variable is the cause. */
function isAgent(r: QueryReader, named: Named): boolean {
  const before = wordBefore(r, named.start);
  return (r.is(before, 'by') && r.is(before - 1, words.PASSIVE_VERBS)) || (r.is(before, 'on') && r.is(before - 1, words.DEPEND_WORDS));
}

function causeAndEffect(r: QueryReader, a: Named, b: Named): [string, string] {
  if (r.is(wordBefore(r, a.start), 'between')) return orient(r.context, a.name, b.name);
  if (isAgent(r, b)) return [b.name, a.name];
  if (isAgent(r, a)) return [a.name, b.name];
  if (r.is(wordBefore(r, a.start), 'on')) return [b.name, a.name];
  return [a.name, b.name];
}

/** Impact (the variable is a cause) rather than discovery (the variable is an effect). */
function asksForEffects(r: QueryReader, named: Named): boolean {
  const before = wordBefore(r, named.start);
  const noun = wordBefore(r, before);
  if (r.is(before, 'of') && r.is(noun, words.EFFECT_NOUNS)) return true;
  if (r.is(before, ['of', 'for', 'behind', 'on']) && (r.is(noun, words.CAUSE_NOUNS) || r.is(noun, words.EFFECT_NOUNS))) return false;
  if (isAgent(r, named)) return true;
  const after = r.skip(named.end, ADVERBS);
  return r.is(after, words.EXPLAIN_VERBS);
}
