import { PredictionScenarioSchema } from '../../../schemas/simulations.js';
import type { BatchScenario } from '../../simulations/batch/prediction.js';
import { parsePrediction } from '../../simulations/from-query/families/prediction.js';
import { type CheckContext, defineFamily, type ScenarioError } from '../family.js';
import { environmentRules, rowEnvironmentRules } from '../shared/panel.js';
import { distinctNames, listReferences, rowReferences } from '../shared/rows.js';
import { sampleScopeRules, scopeReferences } from '../shared/scope.js';

/** The twin kinds whose predictions run as batches (chunks on the pool, results inline or in the data store): on
 * static twins every prediction; on static panels those whose rows come by reference, each row routed to the
 * environment its environment columns name. */
const BATCH_KINDS = { static: 'always', 'multi-environment-static': 'byReference' } as const;

/** The twin's predictions of target variables for given rows (spec: prediction); on a panel, per environment and combined. */
export default defineFamily<BatchScenario>({
  type: 'prediction',
  twinKinds: ['static', 'multi-environment-static'],
  schema: PredictionScenarioSchema,
  references: (s, context) => [
    ...scopeReferences(s),
    // A record may name its environment (a panel's environment columns): those are not variables.
    ...rowReferences(s.sample ?? [], '/sample').filter(([name]) => !(context.environmentColumns ?? []).includes(name)),
    ...listReferences(s.sampleTable?.columns, '/sampleTable/columns'),
    ...listReferences(s.targetVars, '/targetVars'),
  ],
  rules: (s, context) => [
    ...rowsRules(s, context),
    ...distinctNames(s.targetVars, '/targetVars'),
    ...environmentRules(s, context),
    ...rowEnvironmentRules(s, context),
    ...sampleScopeRules(s.type, s),
  ],
  batchRows: BATCH_KINDS,
  fromQuery: [
    { order: 60, parse: (reader) => parsePrediction(reader, { explicit: true }) },
    { order: 80, parse: (reader) => parsePrediction(reader, { explicit: false }) },
  ],
  engine: new URL('./engine.js', import.meta.url).href,
});

/** Exactly one way in for the rows; a table's rows as wide as its header; rows by reference on the batch kinds. */
function rowsRules(s: BatchScenario, context: CheckContext): ScenarioError[] {
  const { twinType } = context;
  const given = (['sample', 'sampleTable', 'rowsFrom'] as const).filter((member) => s[member] !== undefined);
  if (given.length !== 1) {
    return [{ location: given.length === 0 ? '' : `/${given[1]}`, message: given.length === 0 ? 'give the rows to predict: sample, sampleTable or rowsFrom' : `give the rows one way: ${given.join(' and ')} were both given` }];
  }
  const errors: ScenarioError[] = [];
  const width = s.sampleTable?.columns.length ?? 0;
  const ragged = s.sampleTable?.rows.findIndex((row) => row.length !== width) ?? -1;
  if (ragged >= 0) errors.push({ location: `/sampleTable/rows/${ragged}`, message: `each row has one value per column (${width}); this one has ${s.sampleTable!.rows[ragged]!.length}` });
  if (s.rowsFrom !== undefined) {
    if ((s.rowsFrom.datasetId === undefined) === (s.rowsFrom.sourceId === undefined)) errors.push({ location: '/rowsFrom', message: 'name exactly one of datasetId and sourceId' });
    if (s.resultsStorage === 'inline') errors.push({ location: '/resultsStorage', message: 'rows read by reference keep their results in the data store: omit resultsStorage or set it to datastore' });
  }
  const mode = (BATCH_KINDS as Record<string, 'always' | 'byReference' | undefined>)[twinType];
  if (s.rowsFrom !== undefined && mode === undefined) {
    errors.push({ location: '/rowsFrom', message: `rows by reference are read for static twins and static panels; this twin is ${twinType}: send the rows inline` });
  }
  if (s.resultsStorage === 'datastore' && s.rowsFrom === undefined && mode !== 'always') {
    errors.push({ location: '/resultsStorage', message: `inline rows keep their results inline on a ${twinType} twin: omit resultsStorage, or read the rows by reference (rowsFrom)` });
  }
  if (s.rowsFrom !== undefined && mode === 'byReference' && s.environments !== undefined) {
    errors.push({ location: '/environments', message: `rows read by reference name their environments in the environment columns (${(context.environmentColumns ?? []).join(', ')}): leave out environments` });
  }
  return errors;
}
