/**
 * Design terms of a node's model and their columns over a frame. Terms refer to parents by name and to
 * categories by label, so a model applies to any frame with those columns, whatever its category codes.
 */
import { columnByName } from '../frame.js';
import type { Frame, NodeModel } from '../types.js';

export type Term = Extract<NodeModel, { kind: 'continuous' }>['terms'][number];

/**
 * Terms for a node's parents: a linear term per continuous parent, an indicator per category after the first of
 * each categorical parent, and with `nonlinear` the squares and pairwise products of the continuous parents.
 */
export function termsFor(frame: Frame, parents: readonly string[], nonlinear: boolean): Term[] {
  const terms: Term[] = [];
  const continuous: string[] = [];
  for (const name of parents) {
    const column = columnByName(frame, name);
    if (column.kind === 'continuous') {
      terms.push({ kind: 'linear', parents: [name] });
      continuous.push(name);
    } else {
      for (const category of column.categories.slice(1)) terms.push({ kind: 'indicator', parents: [name], category });
    }
  }
  if (nonlinear) {
    for (const name of continuous) terms.push({ kind: 'square', parents: [name] });
    for (let a = 0; a < continuous.length; a++) {
      for (let b = a + 1; b < continuous.length; b++) terms.push({ kind: 'product', parents: [continuous[a]!, continuous[b]!] });
    }
  }
  return terms;
}

/** The term's values over the frame's rows; NaN where an input is missing. */
export function termColumn(frame: Frame, term: Term): Float64Array {
  const out = new Float64Array(frame.nRows);
  if (term.kind === 'indicator') {
    const column = columnByName(frame, term.parents[0]!);
    if (column.kind !== 'categorical') throw new Error(`indicator term on continuous column ${column.name}`);
    const code = column.categories.indexOf(term.category ?? '');
    for (let r = 0; r < frame.nRows; r++) out[r] = column.codes[r]! < 0 ? Number.NaN : column.codes[r] === code ? 1 : 0;
    return out;
  }
  const values = term.parents.map((name) => numericValues(frame, name));
  for (let r = 0; r < frame.nRows; r++) {
    const a = values[0]![r]!;
    out[r] = term.kind === 'linear' ? a : term.kind === 'square' ? a * a : a * values[1]![r]!;
  }
  return out;
}

function numericValues(frame: Frame, name: string): Float64Array {
  const column = columnByName(frame, name);
  if (column.kind !== 'continuous') throw new Error(`numeric term on categorical column ${name}`);
  return column.values;
}

/**
 * Codes of a categorical column translated to the model's category list by label (-1 for missing or unknown), so
 * a frame whose codes were assigned differently still evaluates correctly.
 */
export function codesInCategories(frame: Frame, name: string, categories: readonly string[]): Int32Array {
  const column = columnByName(frame, name);
  if (column.kind !== 'categorical') throw new Error(`column ${name} is not categorical`);
  const translate = column.categories.map((label) => categories.indexOf(label));
  return column.codes.map((c) => (c < 0 ? -1 : translate[c] ?? -1));
}
