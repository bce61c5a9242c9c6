import type { MetaDb } from '../../store/meta/port.js';
import type { OntologyInstallsTable } from '../../store/meta/schema.js';

export type OntologyInstallRow = OntologyInstallsTable;

/** Which workspace concept stands for which library concept, and whether the install made it or found it. */
export interface InstallEntry {
  canonicalId: string;
  conceptId: string;
  origin: 'created' | 'linked';
}

export const entriesOf = (row: OntologyInstallRow): InstallEntry[] => JSON.parse(row.concepts) as InstallEntry[];

/** The ontology libraries installed in workspaces: one row per workspace and library. */
export class OntologyInstallRepo {
  constructor(private readonly db: MetaDb) {}

  list(organisationId: string, workspaceId: string): Promise<OntologyInstallRow[]> {
    return this.db.selectFrom('ontology_installs').selectAll().where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).orderBy('ontology_id').execute();
  }

  find(organisationId: string, workspaceId: string, ontologyId: string): Promise<OntologyInstallRow | undefined> {
    return this.db
      .selectFrom('ontology_installs')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('workspace_id', '=', workspaceId)
      .where('ontology_id', '=', ontologyId)
      .executeTakeFirst();
  }

  /**
   * Records an install, or the new version and concepts of one already there (who installed it, and when, stay):
   * concurrent saves of one install land one row. Answers the row as stored.
   */
  async save(row: OntologyInstallRow): Promise<OntologyInstallRow> {
    await this.db
      .insertInto('ontology_installs')
      .values(row)
      .onConflict((conflict) =>
        conflict
          .columns(['workspace_id', 'ontology_id'])
          .doUpdateSet((eb) => ({ ontology_version: eb.ref('excluded.ontology_version'), concepts: eb.ref('excluded.concepts'), updated_at: eb.ref('excluded.updated_at') }))
          .where('ontology_installs.organisation_id', '=', row.organisation_id),
      )
      .execute();
    const stored = await this.find(row.organisation_id, row.workspace_id, row.ontology_id);
    if (stored === undefined) throw new Error(`ontology install ${row.ontology_id} of workspace ${row.workspace_id} belongs to another organisation`);
    return stored;
  }

  async delete(organisationId: string, workspaceId: string, ontologyId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('ontology_installs')
      .where('organisation_id', '=', organisationId)
      .where('workspace_id', '=', workspaceId)
      .where('ontology_id', '=', ontologyId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
