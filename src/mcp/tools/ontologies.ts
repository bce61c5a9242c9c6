/** Shared ontology libraries as MCP tools: which standard concept sets exist, and installing one into a workspace. */
import { InstallOntologyBody, OntologyInstallResultSchema, OntologyLibrarySummarySchema } from '../../../schemas/ontology-libraries.js';
import { ListOf, type Tool, WorkspaceId, defineTool } from '../tool.js';

export const ontologyTools: Tool[] = [
  defineTool({
    name: 'list_ontologies', title: 'List ontology libraries', scope: 'ontology:read', effect: 'read',
    description: 'The shared ontology libraries a workspace can install (e.g. causa.commerce: customers, products, orders, countries with ISO codes, US states, currencies, revenue...): id, newest version, versions and concept count.',
    input: {}, output: ListOf(OntologyLibrarySummarySchema),
    run: async ({ services }) => ({ items: services.ontologyLibraries.libraries() }),
  }),
  defineTool({
    name: 'install_ontology', title: 'Install an ontology library', scope: 'ontology:write', effect: 'write', idempotent: true,
    description: 'Installs a library (list_ontologies) into a workspace\'s ontology, or updates it to a newer version: its concepts become the workspace\'s (a concept of the same name is linked, not duplicated) and extraction maps fields onto them. Installing again changes nothing. Answers which concepts were created, linked, updated and unchanged.',
    input: { workspaceId: WorkspaceId, ...InstallOntologyBody.properties }, output: OntologyInstallResultSchema,
    run: async ({ services, principal, args }) => {
      const { workspaceId, ...body } = args;
      return (await services.ontologyLibraries.install(principal, workspaceId, body as never)).result;
    },
  }),
];
