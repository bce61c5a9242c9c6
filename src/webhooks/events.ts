/** Terminal states shared by jobs and simulation runs (spec: "States"). */
export const TERMINAL_STATUSES = ['completed', 'failed', 'cancelled'] as const;
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

export type WebhookSubject = 'job' | 'simulation';
export type WebhookEvent = `${WebhookSubject}.${TerminalStatus}`;

/** What went wrong, copied from the job or run record; the spec leaves its shape open. */
export type WebhookError = string | { code?: string; message: string };

/** The JSON body POSTed to a `webhookUrl` (spec: "Events"). Jobs carry `jobId`, simulation runs `runId`. */
export interface WebhookPayload {
  event: WebhookEvent;
  jobId?: string;
  runId?: string;
  status: TerminalStatus;
  workspaceId: string;
  /** ISO 8601 instant at which the terminal state was reached. */
  completedAt: string;
  /** Present when the status is `failed`. */
  error?: WebhookError;
}

/** `job.completed`, `simulation.failed`, ...: the subject, a dot, and the terminal status. */
export function webhookEvent(kind: WebhookSubject, status: TerminalStatus): WebhookEvent {
  if (!(TERMINAL_STATUSES as readonly string[]).includes(status)) {
    throw new RangeError(`"${String(status)}" is not a terminal status; webhooks are sent only for ${TERMINAL_STATUSES.join(', ')}`);
  }
  return `${kind}.${status}`;
}
