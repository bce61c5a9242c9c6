/** Word forms shared by the readers of names (plain-English questions, column names). */

/** A crude singular: enough for "prices", "sales", "categories", "classes"; short words are left alone. */
export function singular(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** The month (0 = January) a lower-case word names, in full or by its first three letters; -1 for none. */
export function monthOf(word: string): number {
  return MONTHS.findIndex((m) => m === word || m.slice(0, 3) === word);
}
