/**
 * A scoring run's rows as its results table stores them: the table's columns, and a chunk of scored columns
 * (engine/inference/score.ts) written as those columns' RowBinary. The worker that scored a chunk encodes it, so the
 * main thread only inserts the bytes: the drivers' and changes' JSON text costs more per row than anything else the
 * main thread does with a scored row.
 */
import { type ResultColumn, RowBinaryWriter } from '../lib/row-binary.js';
import { type ScoredColumns, VERDICTS } from '../engine/inference/outcome.js';
import type { ScoreQuestion } from '../engine/inference/scenario.js';
import type { CbnModel } from '../engine/types.js';

/**
 * The results table of a scoring run (after its `row` number): `verdict`, per target `<target>_predicted`, `drivers`
 * and `changes` (JSON arrays, as GET .../score shows them) and `reachable`.
 */
export function scoredRowColumns(network: CbnModel, targets: ScoreQuestion['targets']): ResultColumn[] {
  return [
    { name: 'verdict', column: 'verdict', type: 'LowCardinality(String)' },
    ...targets.map((t, i) => ({ name: `${t.variable}_predicted`, column: `t${i}_predicted`, type: categoriesOf(network, t.variable) === null ? 'Nullable(Float64)' : 'Nullable(String)' })),
    { name: 'drivers', column: 'drivers', type: 'String' },
    { name: 'changes', column: 'changes', type: 'String' },
    { name: 'reachable', column: 'reachable', type: 'Nullable(Bool)' },
  ];
}

function categoriesOf(network: CbnModel, variable: string): string[] | null {
  const node = network.nodes.find((n) => n.name === variable);
  if (node === undefined) throw new Error(`target ${variable} is not a variable of the network`);
  return node.kind === 'categorical' ? node.categories : null;
}

/** Writes scored chunks of one network and question as rows of the results table (`row`, then scoredRowColumns). */
export class ScoredRowEncoder {
  private readonly targets: Array<string[] | null>;
  /** Per node, the JSON opening its driver (`{"variable":"X","contribution":`) and its change (`{"variable":"X","from":`). */
  private readonly driverOpen: string[];
  private readonly changeOpen: string[];

  constructor(private readonly network: CbnModel, targets: ScoreQuestion['targets']) {
    this.targets = targets.map((t) => categoriesOf(network, t.variable));
    this.driverOpen = network.nodes.map((node) => `{"variable":${JSON.stringify(node.name)},"contribution":`);
    this.changeOpen = network.nodes.map((node) => `{"variable":${JSON.stringify(node.name)},"from":`);
  }

  /** The chunk's rows, the first of them row `firstRow` of the batch. */
  encode(firstRow: number, scored: ScoredColumns): Uint8Array {
    const out = new RowBinaryWriter(Math.max(1024, scored.nRows * 160));
    for (let r = 0; r < scored.nRows; r++) {
      out.uint64(firstRow + r);
      out.string(VERDICTS[scored.verdicts[r]!]!);
      for (let j = 0; j < this.targets.length; j++) {
        const value = scored.predictions[j]![r]!;
        const categories = this.targets[j]!;
        if (categories === null) out.nullableFloat64(value);
        else out.nullableString(value === value ? categories[value] ?? null : null);
      }
      out.string(this.driversJson(scored, r));
      out.string(this.changesJson(scored, r));
      out.nullableBool(scored.reachable[r]! < 0 ? null : scored.reachable[r] === 1);
    }
    return out.bytes();
  }

  private driversJson(scored: ScoredColumns, r: number): string {
    const first = r * scored.driversPerRow;
    let json = '[';
    for (let k = first; k < first + scored.driversPerRow && scored.driverNodes[k]! >= 0; k++) {
      json += `${k === first ? '' : ','}${this.driverOpen[scored.driverNodes[k]!]!}${scored.driverContributions[k]!}}`;
    }
    return `${json}]`;
  }

  private changesJson(scored: ScoredColumns, r: number): string {
    let json = '[';
    for (let k = scored.changeStart[r]!; k < scored.changeStart[r + 1]!; k++) {
      const node = scored.changeNodes[k]!;
      json += `${k === scored.changeStart[r] ? '' : ','}${this.changeOpen[node]!}${this.valueJson(node, scored.changeFrom[k]!)},"to":${this.valueJson(node, scored.changeTo[k]!)}}`;
    }
    return `${json}]`;
  }

  /** A value as JSON: a number, a class label, or null. */
  private valueJson(node: number, value: number): string {
    if (value !== value) return 'null';
    const variable = this.network.nodes[node]!;
    return variable.kind === 'categorical' ? JSON.stringify(variable.categories[value] ?? null) : String(value);
  }
}
