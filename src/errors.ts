/**
 * The one problem catalogue (RFC 9457 / RFC 7807). Every failure the service answers is one of these codes;
 * nothing else invents an error shape. `type` is a stable URN so clients can switch on it.
 */
export const PROBLEMS = {
  invalid_request: { status: 400, title: 'Invalid request' },
  malformed_json: { status: 400, title: 'Malformed JSON body' },
  invalid_cursor: { status: 400, title: 'Invalid pagination cursor' },
  invalid_idempotency_key: { status: 400, title: 'Invalid Idempotency-Key header' },
  unauthenticated: { status: 401, title: 'Missing or invalid credential' },
  forbidden: { status: 403, title: 'Permission denied' },
  missing_scope: { status: 403, title: 'Missing scope' },
  workspace_out_of_scope: { status: 403, title: 'Workspace outside the credential scope' },
  ip_not_allowed: { status: 403, title: 'Address not in the key allowlist' },
  not_found: { status: 404, title: 'Resource not found' },
  route_not_found: { status: 404, title: 'No such route' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  stale_version: { status: 409, title: 'Stale version' },
  idempotency_key_reused: { status: 409, title: 'Idempotency-Key reused with a different request' },
  idempotency_in_progress: { status: 409, title: 'A request with this Idempotency-Key is in progress' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  source_query_failed: { status: 400, title: 'The source refused the query' },
  internal: { status: 500, title: 'Internal server error' },
  source_unreachable: { status: 502, title: 'The source could not be reached' },
  unavailable: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

export const PROBLEM_TYPE_PREFIX = 'urn:causa:problem:';

export function problemType(code: ProblemCode): string {
  return PROBLEM_TYPE_PREFIX + code.replaceAll('_', '-');
}

/** One entry of a validation problem: where (JSON pointer into the request part) and what. */
export interface FieldError {
  location: string;
  message: string;
}

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  requestId?: string;
  errors?: FieldError[];
}

/** A failure with a catalogue code: services throw these, the HTTP layer renders them. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extras: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.status = PROBLEMS[code].status;
  }

  toProblem(instance?: string, requestId?: string): ProblemDocument {
    const problem: ProblemDocument = {
      type: problemType(this.code),
      title: PROBLEMS[this.code].title,
      status: this.status,
      detail: this.detail,
    };
    if (instance !== undefined) problem.instance = instance;
    if (requestId !== undefined) problem.requestId = requestId;
    if (this.extras.errors !== undefined) problem.errors = this.extras.errors;
    return problem;
  }
}

export const notFound = (what: string, id: string) => new AppError('not_found', `${what} ${id} was not found`);
