import { type Static, Type } from 'typebox';
import { Body, Nullable, Timestamp } from './common.js';

export const WorkspaceSchema = Type.Object(
  {
    id: Type.String(),
    organisationId: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    createdAt: Timestamp,
    isOrgLibrary: Type.Boolean({ description: 'True for the organisation library every organisation has' }),
  },
  { $id: 'Workspace', title: 'Workspace' },
);
export type Workspace = Static<typeof WorkspaceSchema>;

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Description = Nullable(Type.String({ maxLength: 5000 }));

export const CreateWorkspaceBody = Body({
  name: Name,
  description: Type.Optional(Description),
});
export type CreateWorkspace = Static<typeof CreateWorkspaceBody>;

export const UpdateWorkspaceBody = Body({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
});
export type UpdateWorkspace = Static<typeof UpdateWorkspaceBody>;

export const MembershipLevelSchema = Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('full')], {
  description: 'read < write < full; full is needed to delete',
});

export const WorkspaceMemberSchema = Type.Object(
  {
    workspaceId: Type.String(),
    userId: Type.String(),
    level: MembershipLevelSchema,
    isOwner: Type.Boolean(),
    createdAt: Timestamp,
  },
  { $id: 'WorkspaceMember', title: 'WorkspaceMember' },
);
export type WorkspaceMember = Static<typeof WorkspaceMemberSchema>;

export const PutMemberBody = Body({ level: MembershipLevelSchema });
