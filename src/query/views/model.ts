import type { DataView } from '../../../schemas/data-views.js';
import type { Principal } from '../../auth/principal.js';
import { AppError } from '../../errors.js';
import { newId, nowIso } from '../../lib/ids.js';
import type { DataViewRow } from './repo.js';

export function newViewRow(principal: Principal, workspaceId: string, name: string, description: string | null, query: string): DataViewRow {
  const now = nowIso();
  return {
    id: newId('dv'), organisation_id: principal.organisationId, workspace_id: workspaceId, name: name.trim(), name_key: name.trim().toLowerCase(),
    description, query, created_by: principal.userId, created_at: now, updated_at: now,
  };
}

export const viewNameTaken = (name: string) => new AppError('conflict', `The workspace already has a data view named "${name}"`);

export function toView(row: DataViewRow): DataView {
  return {
    id: row.id, organisationId: row.organisation_id, workspaceId: row.workspace_id, name: row.name, description: row.description, query: row.query,
    createdBy: row.created_by, createdAt: row.created_at, updatedAt: row.updated_at,
  };
}
