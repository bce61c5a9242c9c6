/** Every MCP tool, in the order a user's journey meets them. */
import type { Tool } from '../tool.js';
import { dataTools } from './data.js';
import { environmentTools } from './environments.js';
import { jobTools } from './jobs.js';
import { ontologyTools } from './ontologies.js';
import { semanticTools } from './semantic.js';
import { simulationTools } from './simulations.js';
import { twinTools } from './twins.js';

export const TOOLS: readonly Tool[] = [...dataTools, ...semanticTools, ...ontologyTools, ...twinTools, ...environmentTools, ...simulationTools, ...jobTools];

const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));
if (byName.size !== TOOLS.length) throw new Error('two MCP tools share a name');

export const toolNamed = (name: string): Tool | undefined => byName.get(name);
