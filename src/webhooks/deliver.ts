import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress } from './address-policy.js';
import { HostAllowList } from './allow-hosts.js';
import type { WebhookPayload } from './events.js';
import { postPinned, type PostResult } from './pinned-post.js';
import { literalAddress, webhookUrlProblem } from './url.js';

export { webhookEvent } from './events.js';
export type { TerminalStatus, WebhookError, WebhookEvent, WebhookPayload, WebhookSubject } from './events.js';

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_USER_AGENT = 'causa-webhooks/1';

export interface WebhookOutcome {
  delivered: boolean;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** Why it was not delivered (refused, failed, timed out, redirect, error status). */
  reason?: string;
}

export interface WebhookLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** Resolves a host name to every address it has; the default is dns.lookup with `all: true`. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

export interface WebhookSenderOptions {
  /** Hosts that may be called although they resolve to non-public addresses (CAUSA_WEBHOOK_ALLOW_HOSTS). */
  allowHosts: readonly string[];
  /** Budget for one delivery: name lookup, connect, request and response. */
  timeoutMs?: number;
  logger?: WebhookLogger;
  /** Replaces the system resolver; for tests and for deployments with their own DNS client. */
  resolve?: ResolveHost;
}

const systemResolve: ResolveHost = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * Sends completion webhooks: one attempt, best effort, unsigned (spec: "Events"). `send` never throws; the
 * outcome says what happened so the caller can record it. Polling stays the source of truth.
 *
 * The SSRF defence: the URL's host is resolved once, every address it resolves to must be public (unless the
 * operator allow-listed the host), and the connection is pinned to those checked addresses. Redirects are never
 * followed, so a receiver cannot bounce the request to an internal address.
 */
export class WebhookSender {
  private readonly allowList: HostAllowList;
  private readonly timeoutMs: number;
  private readonly logger: WebhookLogger | undefined;
  private readonly resolve: ResolveHost;

  /** Throws InvalidAllowHostEntry for a malformed allow-list entry and RangeError for a bad timeout: both are startup misconfiguration. */
  constructor(options: WebhookSenderOptions) {
    this.allowList = new HostAllowList(options.allowHosts);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs <= 0) throw new RangeError(`webhook timeoutMs must be a positive number, got ${this.timeoutMs}`);
    this.logger = options.logger;
    this.resolve = options.resolve ?? systemResolve;
  }

  async send(url: string, payload: WebhookPayload): Promise<WebhookOutcome> {
    let host: string | undefined;
    let outcome: WebhookOutcome;
    try {
      const parsed = webhookUrlProblem(url, this.allowList);
      if (typeof parsed === 'string') {
        outcome = { delivered: false, reason: `refused: the URL ${parsed}` };
      } else {
        host = parsed.host;
        outcome = await this.deliver(parsed, payload);
      }
    } catch (error) {
      outcome = { delivered: false, reason: `internal error: ${error instanceof Error ? error.message : String(error)}` };
    }
    this.log(host, payload, outcome);
    return outcome;
  }

  private async deliver(url: URL, payload: WebhookPayload): Promise<WebhookOutcome> {
    const deadline = Date.now() + this.timeoutMs;
    const resolved = await this.addressesOf(url, deadline);
    if ('reason' in resolved) return { delivered: false, reason: resolved.reason };

    if (!this.allowList.admits(url)) {
      const internal = resolved.addresses.find((entry) => !isPublicAddress(entry.address));
      if (internal !== undefined) {
        return { delivered: false, reason: `refused: ${url.hostname} resolves to ${internal.address}, which is not a public address` };
      }
    }

    const remaining = deadline - Date.now();
    if (remaining <= 0) return { delivered: false, reason: `timed out after ${this.timeoutMs} ms` };
    const result = await postPinned({
      url,
      addresses: resolved.addresses,
      headers: { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT },
      body: Buffer.from(JSON.stringify(payload)),
      timeoutMs: remaining,
    });
    return this.outcomeOf(result);
  }

  /** The single name resolution of this delivery; a literal IP needs none. */
  private async addressesOf(url: URL, deadline: number): Promise<{ addresses: LookupAddress[] } | { reason: string }> {
    const literal = literalAddress(url);
    if (literal !== undefined) return { addresses: [{ address: literal, family: isIP(literal) }] };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed_out'>((resolve) => {
      timer = setTimeout(() => resolve('timed_out'), Math.max(0, deadline - Date.now()));
    });
    try {
      const answer = await Promise.race([this.resolve(url.hostname), timedOut]);
      if (answer === 'timed_out') return { reason: `timed out after ${this.timeoutMs} ms resolving ${url.hostname}` };
      if (answer.length === 0) return { reason: `host name lookup of ${url.hostname} returned no address` };
      return { addresses: answer };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
      return { reason: `host name lookup of ${url.hostname} failed: ${code}` };
    } finally {
      clearTimeout(timer);
    }
  }

  private outcomeOf(result: PostResult): WebhookOutcome {
    if (result.kind === 'failed') return { delivered: false, reason: `request failed: ${result.reason}` };
    if (result.kind === 'timed_out' && result.answeredStatus === undefined) {
      return { delivered: false, reason: `timed out after ${this.timeoutMs} ms` };
    }
    // A receiver that answered but was slow to finish its body still answered; judge by its status.
    const status = result.kind === 'answered' ? result.status : (result.answeredStatus ?? 0);
    if (status >= 200 && status < 300) return { delivered: true, status };
    if (status >= 300 && status < 400) {
      const location = result.kind === 'answered' && result.location !== undefined ? ` to ${result.location.slice(0, 200)}` : '';
      return { delivered: false, status, reason: `receiver answered ${status} redirect${location}; redirects are not followed` };
    }
    return { delivered: false, status, reason: `receiver answered ${status}` };
  }

  /** The URL itself is not logged: receivers often put a secret token in the path or query. */
  private log(host: string | undefined, payload: WebhookPayload, outcome: WebhookOutcome): void {
    if (this.logger === undefined) return;
    const fields = {
      webhookHost: host,
      event: payload.event,
      jobId: payload.jobId,
      runId: payload.runId,
      workspaceId: payload.workspaceId,
      status: outcome.status,
      reason: outcome.reason,
    };
    try {
      if (outcome.delivered) this.logger.info(fields, 'webhook delivered');
      else this.logger.warn(fields, 'webhook not delivered');
    } catch {
      // A broken logger must not turn a best-effort delivery into a thrown error.
    }
  }
}
