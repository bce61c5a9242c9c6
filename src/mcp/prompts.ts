/**
 * The platform's skills as MCP prompts (slash commands in clients): each names its arguments and steers the
 * assistant through the tools, in the order that gives a trustworthy answer (a trained version, the right family,
 * the answer's identification read back to the user).
 */
import { AppError } from '../errors.js';

interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

interface Prompt {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  text(args: Record<string, string>): string;
}

const arg = (name: string, description: string, required = true): PromptArgument => ({ name, description, required });
const TRUST = 'When you report an effect, say whether it is identified; if not, give its possible values and the deciding edges the user could pin (update_fixed_graph, then run_pipeline).';

export const PROMPTS: Prompt[] = [
  {
    name: 'explain-metric-drivers',
    title: 'Explain what drives a metric',
    description: 'Which variables drive a metric, and by how much, on a trained twin',
    arguments: [arg('metric', 'The variable to explain (e.g. churn)'), arg('workspaceId', 'Workspace id (list_workspaces)', false), arg('period', 'A period to focus on, in words (e.g. March)', false)],
    text: (a) => `Explain what drives ${a.metric}${a.period === undefined ? '' : ` (focus: ${a.period})`}. `
      + `${a.workspaceId === undefined ? 'Find the workspace with list_workspaces, then' : `In workspace ${a.workspaceId},`} find a trained twin whose variables include ${a.metric} (list_twins, get_twin_version). `
      + `Ask it with scenario_from_query ("why does ${a.metric} change?"), or submit_simulation with an explanation scenario in discovery mode on ${a.metric} (temporal_explanation on a temporal twin, panel_explanation on a panel). `
      + `Poll get_simulation until completed, then report the top drivers with their effects and intervals, in plain words. ${TRUST}`,
  },
  {
    name: 'what-if',
    title: 'What if, on a twin',
    description: 'Simulate a change and its effect on outcomes',
    arguments: [arg('change', 'The change, in words (e.g. raise ad spend 10%)'), arg('outcome', 'The outcome to watch', false), arg('twinId', 'The twin to ask (list_twins)', false)],
    text: (a) => `Simulate: ${a.change}${a.outcome === undefined ? '' : `, and its effect on ${a.outcome}`}. `
      + `${a.twinId === undefined ? 'Pick a trained twin that has these variables (list_twins, get_twin_version).' : `Use twin ${a.twinId} and its newest trained version (list_twin_versions).`} `
      + 'Turn the question into a scenario with scenario_from_query and show the user how it was read; submit it with submit_simulation (confirm: true) and poll get_simulation. '
      + `Report the effect with its interval and the baseline it is measured against. ${TRUST}`,
  },
  {
    name: 'find-root-cause',
    title: 'Find the root cause of an anomaly',
    description: 'Why a variable was anomalous in given observations',
    arguments: [arg('target', 'The anomalous variable'), arg('observations', 'The observations, as JSON records (or where to find them)'), arg('twinId', 'The twin (list_twins)', false)],
    text: (a) => `Find why ${a.target} was anomalous in: ${a.observations}. `
      + `${a.twinId === undefined ? 'Pick a trained twin that models it (list_twins).' : `Use twin ${a.twinId}.`} Submit a root cause analysis (root_cause_analysis with samples on a static twin, and observations from just before the incident as baselineSamples when there are any; temporal_root_cause_analysis with the window and anomalyTimestep on a temporal twin; panel_root_cause_analysis on a panel) with submit_simulation (confirm: true), poll get_simulation, `
      + 'and report the most likely root causes with their contributions (causes sharing a rank are ties the twin cannot separate), saying whether the target was anomalous '
      + 'itself or only reached by an anomaly upstream (anomalyBasis), or not at all, and which anomalies were already there before (standing).',
  },
  {
    name: 'build-twin',
    title: 'Build a twin from data',
    description: 'From a dataset or source to a trained twin, checked',
    arguments: [arg('data', 'The source or dataset id, or rows to upload'), arg('workspaceId', 'Workspace id'), arg('timeColumn', 'The time column, for a temporal twin', false), arg('environmentColumns', 'Columns naming places (stores, regions), for a multi-environment twin', false)],
    text: (a) => `Build a digital twin in workspace ${a.workspaceId} from ${a.data}. `
      + 'If these are rows, create a source with create_source_from_rows; check its columns with get_source (types, missing values). '
      + `Create the twin with create_twin (type ${a.timeColumn === undefined ? (a.environmentColumns === undefined ? 'static' : 'multi-environment-static') : a.environmentColumns === undefined ? 'temporal' : 'multi-environment-temporal'}`
      + `${a.timeColumn === undefined ? '' : `, selectedTimeColumnName ${a.timeColumn}`}${a.environmentColumns === undefined ? '' : `, environmentColumns ${a.environmentColumns}`}), then run_pipeline (confirm: true) and poll get_job. `
      + 'When trained, read get_twin_version: report the graph (which edges the data oriented, which are reversible), the evaluation, and ask the user which reversible edges they know the direction of.',
  },
];

export function promptMessages(name: string, args: Record<string, string>) {
  const prompt = PROMPTS.find((p) => p.name === name);
  if (prompt === undefined) throw new AppError('not_found', `There is no prompt ${name} (prompts/list)`);
  const missing = prompt.arguments.filter((a) => a.required && (args[a.name] === undefined || args[a.name] === '')).map((a) => a.name);
  if (missing.length > 0) throw new AppError('validation_failed', `The prompt ${name} needs ${missing.join(', ')}`, { errors: missing.map((m) => ({ location: `arguments/${m}`, message: 'required' })) });
  return { description: prompt.description, messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.text(args) } }] };
}
