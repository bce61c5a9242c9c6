import type { MetaDb } from '../store/meta/port.js';
import type { ApiKeysTable, OrganisationsTable, UsersTable, WorkspaceMembersTable, WorkspacesTable } from '../store/meta/schema.js';

export interface NewOrganisation {
  organisation: OrganisationsTable;
  admin: UsersTable;
  library: WorkspacesTable;
  libraryMembership: WorkspaceMembersTable;
  key: ApiKeysTable | null;
}

export class OrganisationRepo {
  constructor(private readonly db: MetaDb) {}

  /** An organisation is born whole or not at all: its admin, its library workspace and (optionally) a key. */
  async create(entry: NewOrganisation): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('organisations').values(entry.organisation).execute();
      await tx.insertInto('users').values(entry.admin).execute();
      await tx.insertInto('workspaces').values(entry.library).execute();
      await tx.insertInto('workspace_members').values(entry.libraryMembership).execute();
      if (entry.key !== null) await tx.insertInto('api_keys').values(entry.key).execute();
    });
  }

  find(id: string): Promise<OrganisationsTable | undefined> {
    return this.db.selectFrom('organisations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The first admin of the organisation: the user CLI-issued keys act as. */
  firstAdmin(organisationId: string): Promise<UsersTable | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('role', '=', 'admin')
      .orderBy('id', 'asc')
      .limit(1)
      .executeTakeFirst();
  }
}
