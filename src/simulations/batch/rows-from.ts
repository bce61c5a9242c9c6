/**
 * A batch's rows by reference (a prediction's or a scoring's `rowsFrom`): a dataset or source of the workspace,
 * filtered and limited. What a submit checks of it, and how a run reads it: straight from the data by its row key
 * (keyset.ts) or staged once (staged.ts).
 */
import type { Static } from 'typebox';
import type { RowsFromSchema } from '../../../schemas/simulations.js';
import type { Principal } from '../../auth/principal.js';
import { compileCondition } from '../../datasets/compiler/filter.js';
import type { CompiledDataset } from '../../datasets/compiler/compile.js';
import type { DataBinding, DatasetService } from '../../datasets/service.js';
import type { PanelRouting } from '../../engine/panel/routing.js';
import type { RowShape } from '../../engine/inference/score.js';
import { AppError } from '../../errors.js';
import { type DataStore, quoteColumn } from '../../store/data/port.js';
import { type BatchInput, selection } from './input.js';
import { KeysetInput, readableByKey } from './keyset.js';
import { StagedInput } from './staged.js';

export type RowsFrom = Static<typeof RowsFromSchema>;

/** Where a prediction's rowsFrom is in its request (a scoring request's is `rowsFrom`). */
const SCENARIO_ROWS_FROM = 'scenario/rowsFrom';

export class BatchRows {
  constructor(
    private readonly datasets: DatasetService,
    private readonly data: () => DataStore,
  ) {}

  /**
   * What a submit checks: the data exists in the workspace, the filter compiles, the kept columns are columns of
   * it, and at least one variable the prediction conditions on is a column (else every row would be the prior).
   */
  async check(principal: Principal, workspaceId: string, rowsFrom: RowsFrom, model: RowShape, targets: readonly string[], at = SCENARIO_ROWS_FROM, reads: { environmentColumns?: readonly string[]; timeColumn?: string } = {}): Promise<void> {
    const { compiled, condition } = await this.compile(principal, workspaceId, rowsFrom, at);
    const where = `body/${at}`;
    const columns = new Set(compiled.relation.columns.map((c) => c.name));
    const environmentColumns = reads.environmentColumns ?? [];
    const unnamed = environmentColumns.filter((name) => !columns.has(name));
    if (unnamed.length > 0) {
      const message = `the rows name their environment in the twin's environment columns (${environmentColumns.join(', ')}); the data has no ${unnamed.join(', ')}`;
      throw new AppError('validation_failed', message, { errors: [{ location: where, message }] });
    }
    if (reads.timeColumn !== undefined && !columns.has(reads.timeColumn)) {
      const message = `the rows are steps of a series placed by the twin's time column '${reads.timeColumn}'; the data has no such column`;
      throw new AppError('validation_failed', message, { errors: [{ location: where, message }] });
    }
    if (reads.timeColumn !== undefined) await this.oneRowPerTime(principal, rowsFrom, compiled, condition, reads.timeColumn, environmentColumns, where);
    const missing = (rowsFrom.keepColumns ?? []).flatMap((name, i) => (columns.has(name) ? [] : [{ location: `${where}/keepColumns/${i}`, message: `'${name}' is not a column of the data` }]));
    if (missing.length > 0) throw new AppError('validation_failed', missing[0]!.message, { errors: missing });
    // A series' targets are inputs too: their own past.
    const inputs = model.nodes.filter((node) => (reads.timeColumn !== undefined || !targets.includes(node.name)) && columns.has(node.name));
    if (inputs.length === 0) {
      const message = `none of the twin's input variables (${model.nodes.filter((n) => !targets.includes(n.name)).slice(0, 8).map((n) => n.name).join(', ')}) is a column of the data`;
      throw new AppError('validation_failed', message, { errors: [{ location: where, message }] });
    }
  }

  /**
   * A series is scored one row per step: rows that share a time (within an environment) are refused at submit,
   * naming the first such time (learning combines them; scoring answers each row, so the data must say which).
   */
  private async oneRowPerTime(principal: Principal, rowsFrom: RowsFrom, compiled: CompiledDataset, condition: string | null, timeColumn: string, environmentColumns: readonly string[], where: string): Promise<void> {
    const keys = [...environmentColumns, timeColumn].map((column) => `s.${quoteColumn(column)}`);
    const rows = selection(compiled, condition, rowsFrom.limit, timeColumn, environmentColumns);
    const [shared] = await this.data().query<{ at: string; n: number | string }>(
      principal.organisationId,
      (sql) => `SELECT toString(tuple(${keys.join(', ')})) AS at, count() AS n FROM (${rows(sql)}) AS s GROUP BY ${keys.join(', ')} HAVING n > 1 LIMIT 1`,
      compiled.params.values,
    );
    if (shared === undefined) return;
    const message = `${Number(shared.n)} rows share one time ${shared.at} (${[...environmentColumns, timeColumn].join(', ')}): a series is scored one row per step; combine them in a dataset or filter them out`;
    throw new AppError('validation_failed', message, { errors: [{ location: where, message }] });
  }

  /**
   * The rows of a batch that are not a series: read straight from the data by their source row key where each row
   * keeps it (keyset.ts readableByKey), else staged once (staged.ts).
   */
  async open(principal: Principal, workspaceId: string, runId: string, rowsFrom: RowsFrom, model: RowShape, signal: AbortSignal, environments?: PanelRouting): Promise<BatchInput> {
    const { compiled, condition } = await this.compile(principal, workspaceId, rowsFrom);
    const plan = { organisationId: principal.organisationId, compiled, condition, limit: rowsFrom.limit, keep: rowsFrom.keepColumns ?? [], model, ...(environments === undefined ? {} : { environments }) };
    if (readableByKey(compiled)) return KeysetInput.open(this.data(), plan, signal);
    return StagedInput.stage(this.data(), { ...plan, runId }, signal);
  }

  /** The rows of a series (a temporal twin's), staged in the order of its time column, each with its time. */
  async stageSeries(principal: Principal, workspaceId: string, runId: string, rowsFrom: RowsFrom, model: RowShape, timeColumn: string, signal: AbortSignal, environments?: PanelRouting): Promise<StagedInput> {
    const { compiled, condition } = await this.compile(principal, workspaceId, rowsFrom);
    const plan = { organisationId: principal.organisationId, runId, compiled, condition, limit: rowsFrom.limit, keep: rowsFrom.keepColumns ?? [], model, timeColumn };
    return StagedInput.stage(this.data(), environments === undefined ? plan : { ...plan, environments }, signal);
  }

  private async compile(principal: Principal, workspaceId: string, rowsFrom: RowsFrom, at = SCENARIO_ROWS_FROM): Promise<{ compiled: CompiledDataset; condition: string | null }> {
    const binding: DataBinding = rowsFrom.datasetId !== undefined ? { datasetId: rowsFrom.datasetId } : { sourceId: rowsFrom.sourceId ?? '' };
    const member = `${at}/${'datasetId' in binding ? 'datasetId' : 'sourceId'}`;
    const { compiled } = await this.datasets.learningInput(principal, workspaceId, binding, member);
    const condition = rowsFrom.filter === undefined ? null : compileCondition(rowsFrom.filter, compiled.relation, 's', compiled.params, `body/${at}/filter`);
    return { compiled, condition };
  }
}
