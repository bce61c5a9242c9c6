/**
 * A query being read: its tokens, the variables it names, and which tokens a family parser has already used.
 * Parsers look at tokens by index and consume what they understood, so whatever is left over (a variable named
 * but not yet given a role, a number no variable claims) can be reported or given a default role.
 */
import { categoryAt, findMentions, labelsOf, type Labels, type Mention } from './mentions.js';
import { ambiguousVariable } from './problems.js';
import { tokenize, type Token } from './tokenize.js';
import * as vocabulary from './vocabulary.js';

export interface QueryVariable {
  name: string;
  type: 'continuous' | 'categorical';
  categories?: string[];
  /** The version's variableRoles: sources have no parents, targets no children. */
  role?: 'source' | 'target' | null;
  description?: string;
}

/** Steps of a temporal version's data: their times, each variable's values (labels, null where missing), and the model's largest lag. */
export interface StepHistory {
  times: readonly number[];
  values: Readonly<Record<string, ReadonlyArray<number | string | null>>>;
  maxLag: number;
}

export interface QueryContext {
  variables: QueryVariable[];
  /** Edges of the twin's causal graph. */
  edges: { source: string; target: string }[];
  /** Temporal twins: the length of one step in milliseconds (absent on an integer time axis), for horizons in days. */
  stepMs?: number;
  /** Temporal twins: the version's recent data, windows of which the monitoring questions diagnose. */
  history?: StepHistory & { axis: 'time' | 'index'; column?: string };
}

export interface NumberRead {
  value: number;
  unit: Token['unit'];
  next: number;
}

/** Words that carry grammar, not content: never quoted back as an unknown variable name (qualifiers such as
 * "value" or "total" are content: "lifetime value" is quoted whole). */
const GRAMMAR = new Set(
  Object.entries(vocabulary)
    .filter(([name]) => name !== 'GENERIC_WORDS')
    .flatMap(([, entry]) => (entry instanceof Set ? [...entry] : Array.isArray(entry) ? [] : Object.keys(entry))),
);

/** An unknown name is quoted with at most this many words. */
const PHRASE_WORDS_MAX = 4;

/** What reading a query once yields, shared by every attempt to parse it. */
interface Reading {
  tokens: Token[];
  mentions: Mention[];
  labels: Map<string, Labels>;
}

export class QueryReader {
  readonly tokens: Token[];
  readonly mentions: Mention[];
  readonly names: string[];
  /** What a parser understood was asked but could not complete ("say by how much ..."): the 422 if nothing fits. */
  readonly hints: string[] = [];
  private readonly consumed: Uint8Array;
  private readonly byName: Map<string, QueryVariable>;
  private readonly reading: Reading;

  constructor(
    readonly query: string,
    readonly context: QueryContext,
    reading?: Reading,
  ) {
    this.names = context.variables.map((v) => v.name);
    this.byName = new Map(context.variables.map((v) => [v.name, v]));
    const tokens = reading?.tokens ?? tokenize(query);
    const mentions = reading?.mentions ?? withoutEnglishUses(tokens, findMentions(query, tokens, this.names), context.variables);
    this.reading = reading ?? { tokens, mentions, labels: new Map() };
    this.tokens = this.reading.tokens;
    this.mentions = this.reading.mentions;
    this.consumed = new Uint8Array(this.tokens.length);
  }

  /** The same query with nothing consumed, for another family to try. */
  fresh(): QueryReader {
    return new QueryReader(this.query, this.context, this.reading);
  }

  get length(): number {
    return this.tokens.length;
  }

  lower(at: number): string {
    return this.tokens[at]?.lower ?? '';
  }

  /** The token at `at` is `words`, or one of them. */
  is(at: number, words: string | ReadonlySet<string> | readonly string[]): boolean {
    const word = this.lower(at);
    if (word === '') return false;
    if (typeof words === 'string') return word === words;
    return Array.isArray(words) ? words.includes(word) : (words as ReadonlySet<string>).has(word);
  }

  /** The index after a multi-word phrase ("at most") spelled at `at`, or -1. */
  phrase(at: number, phrase: string): number {
    const parts = phrase.split(' ');
    return parts.every((part, k) => this.lower(at + k) === part) ? at + parts.length : -1;
  }

  /** The first index at or after `at` whose token is not one of `words`. */
  skip(at: number, words: ReadonlySet<string>): number {
    let i = at;
    while (i < this.tokens.length && words.has(this.lower(i))) i++;
    return i;
  }

  isConsumed(at: number): boolean {
    return this.consumed[at] === 1;
  }

  consume(from: number, to: number): void {
    this.consumed.fill(1, from, to);
  }

  variable(name: string): QueryVariable {
    const variable = this.byName.get(name);
    if (variable === undefined) throw new Error(`unknown variable ${name}`);
    return variable;
  }

  /** An unused mention starting at `at` (ambiguous ones included). */
  mentionAt(at: number): Mention | undefined {
    return this.isConsumed(at) ? undefined : this.mentions.find((m) => m.start === at);
  }

  /** The variable named at `at` (after skipping determiners), or null; an ambiguous name is a 422. */
  variableAt(at: number): { variable: QueryVariable; start: number; next: number } | null {
    let start = at;
    // A determiner that begins a variable's name is that name: "what if a rises" with a variable `a`, "maximise
    // total sales" with `total sales`. (Mentions that are English uses of such a word were dropped on reading.)
    while (this.is(start, vocabulary.DETERMINERS) && this.mentionAt(start) === undefined) start++;
    const mention = this.mentionAt(start);
    if (mention === undefined) return null;
    return { variable: this.resolve(mention), start, next: mention.end };
  }

  resolve(mention: Mention): QueryVariable {
    const [only, ...others] = mention.candidates;
    if (only === undefined || others.length > 0) throw ambiguousVariable(mention.phrase, mention.candidates);
    return this.variable(only);
  }

  /** Variables named in tokens nobody consumed, in query order, once each. */
  freeVariables(): QueryVariable[] {
    const free = this.mentions.filter((m) => !this.isConsumed(m.start)).map((m) => this.resolve(m));
    return [...new Map(free.map((v) => [v.name, v])).values()];
  }

  /** The longest category label of `variable` spelled at `at`. */
  categoryAt(at: number, variable: QueryVariable): { label: string; next: number } | null {
    let labels = this.reading.labels.get(variable.name);
    if (labels === undefined) {
      labels = labelsOf(variable.categories ?? []);
      this.reading.labels.set(variable.name, labels);
    }
    return categoryAt(this.tokens, at, labels);
  }

  numberAt(at: number): NumberRead | null {
    const token = this.tokens[at];
    if (token === undefined || token.kind !== 'number' || this.isConsumed(at)) return null;
    return { value: token.value, unit: token.unit, next: at + 1 };
  }

  /** Content words from `at` on (no grammar words, no variable), e.g. an unknown name in a variable's slot. */
  contentAfter(at: number): { phrase: string; next: number } | null {
    let end = this.skip(at, vocabulary.DETERMINERS);
    const start = end;
    while (end - start < PHRASE_WORDS_MAX && this.isContent(end)) end++;
    return end > start ? { phrase: this.text(start, end), next: end } : null;
  }

  /** Content words ending just before `at`, e.g. the unknown subject of "... cost rises 10%". */
  contentBefore(at: number): string | null {
    let start = at;
    while (at - start < PHRASE_WORDS_MAX && this.isContent(start - 1)) start--;
    return start < at ? this.text(start, at) : null;
  }

  text(from: number, to: number): string {
    const first = this.tokens[from];
    const last = this.tokens[to - 1];
    return first === undefined || last === undefined ? '' : this.query.slice(first.start, last.end);
  }

  private isContent(at: number): boolean {
    const token = this.tokens[at];
    if (token === undefined || token.kind !== 'word' || this.isConsumed(at)) return false;
    if (this.mentions.some((m) => m.start <= at && at < m.end)) return false;
    return !vocabulary.STOP_WORDS.has(token.lower) && !GRAMMAR.has(token.lower);
  }
}

/** Verbs whose subject is the asker ("how can i increase c", "if we set a to 5"), never a variable. */
const ACTION_VERBS = new Set([
  ...vocabulary.RAISE_VERBS, ...vocabulary.LOWER_VERBS, ...vocabulary.SET_VERBS, ...vocabulary.SWEEP_VERBS, ...vocabulary.ADD_VERBS,
  ...vocabulary.IMPROVE_VERBS, ...vocabulary.REDUCE_VERBS, ...Object.keys(vocabulary.SCALE_VERBS),
]);

/**
 * A variable named by grammar words alone (`a`, `it`, `to`) is found wherever its word is; where the word is
 * unmistakably English the mention is dropped, so the families read the word as grammar as for any other twin: an
 * article or preposition before a noun phrase (another variable: "to churn"; a category of another variable: "a
 * premium plan"; a noun of the parser's: "a customer", "the share"; an amount of change: "a 10% increase"), or the
 * asker before a verb acting on a variable ("how can i increase c"). Anywhere else the word is the variable: "what
 * if a rises 10%", "set a to 5", "predict c for a 12", "with a below 5", even before words the parser does not know.
 */
function withoutEnglishUses(tokens: Token[], mentions: Mention[], variables: QueryVariable[]): Mention[] {
  const isWeak = (m: Mention) => tokens.slice(m.start, m.end).every((t) => t.kind === 'word' && GRAMMAR.has(t.lower));
  if (!mentions.some(isWeak)) return mentions;
  const lower = (at: number) => (tokens[at]?.kind === 'word' ? tokens[at].lower : '');
  // Only a name with a content word opens a noun phrase: in "set to to 5" (a variable `to`) the first "to" is it.
  const named = new Set(mentions.filter((m) => !isWeak(m)).map((m) => m.start));
  const categorical = variables.filter((v) => v.type === 'categorical').map((v) => ({ name: v.name, labels: labelsOf(v.categories ?? []) }));
  /** A noun phrase starts at `at`, after any articles; a category of the word's own variable is its value ("a x"). */
  const nounAt = (at: number, own: readonly string[]): boolean => {
    let i = at;
    while (vocabulary.DETERMINERS.has(lower(i)) && !named.has(i)) i++;
    if (named.has(i) || vocabulary.UNIT_NOUNS.has(lower(i)) || vocabulary.PROBABILITY_NOUNS.has(lower(i))) return true;
    return categorical.some((v) => !own.includes(v.name) && categoryAt(tokens, i, v.labels) !== null);
  };
  const changeNoun = (at: number) => vocabulary.RISE_NOUNS.has(lower(at)) || vocabulary.FALL_NOUNS.has(lower(at));
  return mentions.filter((m) => {
    if (!isWeak(m)) return true;
    const next = m.end;
    if (nounAt(next, m.candidates)) return false;
    if (tokens[next]?.kind === 'number' && changeNoun(next + 1)) return false;
    return !(ACTION_VERBS.has(lower(next)) && nounAt(next + 1, []));
  });
}
