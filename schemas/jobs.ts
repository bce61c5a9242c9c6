import { type Static, Type } from 'typebox';
import { Nullable, Timestamp, literals } from './common.js';

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export const JOB_TYPES = ['twin_discover', 'twin_train', 'twin_pipeline', 'connector_import', 'ontology_extraction', 'concept_enrichment'] as const;

export const ProgressSchema = Type.Object(
  {
    percentage: Type.Number({ minimum: 0, maximum: 100 }),
    state: Type.String({ description: 'What the work is doing now, e.g. `queued`, `reading data`, `discovering graph (depth 2)`' }),
    eta: Nullable(Type.String({ format: 'date-time', description: 'Estimated completion time, when the work can tell' })),
  },
  { description: 'How far the work is' },
);
export type Progress = Static<typeof ProgressSchema>;

export const JobSchema = Type.Object(
  {
    id: Type.String(),
    organisationId: Type.String(),
    workspaceId: Type.String(),
    type: literals(JOB_TYPES, 'What the job does: `twin_discover`, `twin_train`, `twin_pipeline` (discover then train), `connector_import`, `ontology_extraction` (a source\'s fields described as concepts)'),
    status: literals(JOB_STATUSES, '`queued` -> `running` -> `completed` | `failed` | `cancelled`. A queued job can be cancelled before it starts.'),
    resource: Nullable(Type.Object({ type: Type.String({ description: 'e.g. `digital-twin-version`' }), id: Type.String(), twinId: Type.Optional(Type.String()) })),
    params: Type.Record(Type.String(), Type.Unknown(), { description: 'The inputs the job was submitted with' }),
    progress: ProgressSchema,
    result: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'What a completed job produced (e.g. the version it trained and its figures)' })),
    error: Nullable(Type.String({ description: 'Why the job failed (set when `failed`)' })),
    webhookUrl: Nullable(Type.String({ description: 'Where the webhook goes: its origin only (a path or query may hold a secret and is never shown)' })),
    createdBy: Type.String({ description: 'The user who submitted it' }),
    createdAt: Timestamp,
    startedAt: Nullable(Timestamp),
    completedAt: Nullable(Timestamp),
  },
  { $id: 'Job', title: 'Job' },
);
export type Job = Static<typeof JobSchema>;

/** The 202 answer of every operation that starts a job (spec, general convention 3). */
export const JobAcceptedSchema = Type.Object(
  {
    jobId: Type.String(),
    status: literals(JOB_STATUSES),
    createdAt: Timestamp,
    links: Type.Object({ self: Type.String(), cancel: Type.String() }),
  },
  { $id: 'JobAccepted', title: 'JobAccepted' },
);
export type JobAccepted = Static<typeof JobAcceptedSchema>;

export const CancelledJobSchema = Type.Object({
  jobId: Type.String(),
  status: literals(JOB_STATUSES, '`cancelled`, or the terminal state the job had already reached'),
});

export const WebhookUrl = Type.String({
  format: 'uri',
  maxLength: 2048,
  description: 'Called once (POST, JSON) when the job reaches a terminal state; only public http(s) hosts (see Events)',
});
