/**
 * `causa score`: batch predictions of a twin version for a file of rows, through the public API only. The file is
 * uploaded as a source of its own (streamed; the service's upload is idempotent), predicted by reference
 * (`rowsFrom`, results a table in the data store) and the results streamed into the output file. Every step is
 * recorded in a state file beside the output, so running the same command again after an interruption resumes
 * where it stopped instead of starting over.
 */
import { createWriteStream } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type Api, ApiError, fileType } from './api.js';
import type { Reporter } from './progress.js';

export interface ScoreOptions {
  workspace: string;
  twinId: string;
  versionId: string;
  input: string;
  output: string;
  /** Variables to predict (default: the version's target variables). */
  targets?: string[];
  /** Input columns copied beside the predictions (e.g. an id). */
  keep?: string[];
  /** Keep the uploaded source afterwards (default: deleted once the output is written). */
  keepSource?: boolean;
  pollMs?: number;
}

interface State {
  input: string;
  size: number;
  modified: number;
  sourceId?: string;
  uploaded?: boolean;
  runId?: string;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

export async function scoreFile(api: Api, options: ScoreOptions, report: Reporter): Promise<{ output: string; rows: number; runId: string; sourceId: string }> {
  const inputType = fileType(options.input);
  const outputType = fileType(options.output);
  const ws = `/workspaces/${options.workspace}`;
  const stateFile = `${options.output}.causa-state.json`;
  const file = await stat(options.input);
  let state: State = { input: options.input, size: file.size, modified: file.mtimeMs };
  const saved = await readFile(stateFile, 'utf8').then((text) => JSON.parse(text) as State).catch(() => null);
  if (saved !== null && saved.input === state.input && saved.size === state.size && saved.modified === state.modified) {
    state = saved;
    report.step('resume', { sourceId: saved.sourceId ?? null, runId: saved.runId ?? null });
  }
  const save = () => writeFile(stateFile, JSON.stringify(state));

  if (state.sourceId === undefined) {
    const source = await api.json('POST', `${ws}/sources`, { name: `causa score ${basename(options.input)}`, dataFormat: 'Tabular', ontologyMode: 'manual' });
    state.sourceId = source.id as string;
    await save();
  }
  if (state.uploaded !== true) {
    await api.upload(`${ws}/sources/${state.sourceId}/upload?fileName=${encodeURIComponent(basename(options.input))}`, options.input, inputType.upload, (sent, total) => report.progress('upload', sent / Math.max(total, 1), `${sent} of ${total} bytes`));
    state.uploaded = true;
    await save();
    report.step('uploaded', { sourceId: state.sourceId });
  }

  let run: Record<string, any> | null = state.runId === undefined ? null : await api.json('GET', `${ws}/simulations/${state.runId}/status`).catch((error: unknown) => (error instanceof ApiError && error.status === 404 ? null : Promise.reject(error)));
  if (run === null || run.status === 'failed' || run.status === 'cancelled') {
    const targets = options.targets ?? ((await api.json('GET', `${ws}/digital-twins/${options.twinId}/versions/${options.versionId}`)).variableRoles?.targets as string[] | undefined) ?? [];
    if (targets.length === 0) throw new Error('the version names no target variables: give them with --targets');
    const rowsFrom = { sourceId: state.sourceId, ...(options.keep === undefined ? {} : { keepColumns: options.keep }) };
    const accepted = await api.json('POST', `${ws}/simulations`, { digitalTwinId: options.twinId, digitalTwinVersionId: options.versionId, scenario: { type: 'prediction', rowsFrom, targetVars: targets } });
    state.runId = accepted.runId as string;
    await save();
    report.step('submitted', { runId: state.runId, targets: targets.join(',') });
    run = { status: 'pending', progress: { percentage: 0, state: 'pending' } };
  }
  let status: Record<string, any> = run;
  while (!TERMINAL.has(status.status)) {
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 500));
    status = await api.json('GET', `${ws}/simulations/${state.runId}/status`);
    report.progress('predict', (status.progress?.percentage ?? 0) / 100, String(status.progress?.state ?? status.status));
  }
  if (status.status !== 'completed') throw new Error(`run ${state.runId} ${status.status}: ${status.error ?? ''}`);

  const partial = `${options.output}.partial`;
  await pipeline(await api.download(`${ws}/simulations/${state.runId}/rows/export/${outputType.export}`), createWriteStream(partial));
  await rename(partial, options.output);
  const outputs = await api.json<Record<string, { details: { rows: number } }>>('GET', `${ws}/simulations/${state.runId}/results`);
  const rows = Object.values(outputs)[0]?.details.rows ?? 0;
  if (options.keepSource !== true) await api.json('DELETE', `${ws}/sources/${state.sourceId}`).catch(() => undefined);
  await rm(stateFile, { force: true });
  return { output: options.output, rows, runId: state.runId!, sourceId: state.sourceId! };
}
