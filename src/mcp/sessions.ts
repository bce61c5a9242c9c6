/**
 * What a credential's MCP session keeps between requests (optional capabilities of the MCP specification):
 * - logging: the level set with `logging/setLevel` (RFC 5424 severities); `notifications/message` below it are
 *   not sent. A message goes on the request's own event stream when it has one, else on the credential's open
 *   GET /mcp streams.
 * - resource subscriptions: `resources/subscribe` remembers a URI and its content's digest; while the credential
 *   has an open stream, each subscribed resource is read again every few seconds (with the subscriber's
 *   principal) and `notifications/resources/updated` is sent when the digest changed or the resource is gone (then
 *   the subscription ends).
 * Every few seconds each credential with an open stream is checked again: a revoked or expired key's streams end
 * and its session state goes.
 * State lives in this process: a scale-out deployment routes a session (`Mcp-Session-Id`) to one process, as the
 * legacy transport's streams need anyway.
 */
import { createHash } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import { AppError } from '../errors.js';
import { type McpStreams, credentialOf } from './streams.js';

/** RFC 5424 severities as MCP names them, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const isLogLevel = (value: unknown): value is LogLevel => (LOG_LEVELS as readonly unknown[]).includes(value);
/** Until a client sets a level, info and above are sent. */
const DEFAULT_LEVEL: LogLevel = 'info';

/** Subscriptions one credential may hold. */
export const MAX_SUBSCRIPTIONS = 100;
const POLL_MS = 2_000;

type Notify = (message: Record<string, unknown>) => void;
export type ReadResource = (principal: Principal, uri: string) => Promise<string>;

interface Subscription {
  principal: Principal;
  digest: string;
}

const digestOf = (text: string) => createHash('sha256').update(text).digest('base64url');

export class McpSessions {
  private readonly levels = new Map<string, LogLevel>();
  /** credential -> uri -> subscription */
  private readonly subscriptions = new Map<string, Map<string, Subscription>>();
  private readonly timer: NodeJS.Timeout;
  private polling = false;

  constructor(private readonly streams: McpStreams, private readonly read: ReadResource, pollMs = POLL_MS) {
    this.timer = setInterval(() => void this.poll(), pollMs);
    this.timer.unref();
  }

  setLevel(principal: Principal, level: LogLevel): void {
    this.levels.set(credentialOf(principal), level);
  }

  /** A log message for the caller (`logger` names the part of the service speaking), unless below its level. */
  log(principal: Principal, level: LogLevel, logger: string, data: unknown, notify?: Notify): void {
    const credential = credentialOf(principal);
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(this.levels.get(credential) ?? DEFAULT_LEVEL)) return;
    const message = { jsonrpc: '2.0', method: 'notifications/message', params: { level, logger, data } };
    if (notify !== undefined) return notify(message);
    for (const stream of this.streams.ofCredential(credential)) stream.send(message);
  }

  /** Remembers `uri` (already read by the caller: `text` is its content now). */
  subscribe(principal: Principal, uri: string, text: string): void {
    const credential = credentialOf(principal);
    const held = this.subscriptions.get(credential) ?? new Map<string, Subscription>();
    if (!held.has(uri) && held.size >= MAX_SUBSCRIPTIONS) {
      throw new AppError('validation_failed', `A credential holds at most ${MAX_SUBSCRIPTIONS} resource subscriptions; unsubscribe from one first`);
    }
    held.set(uri, { principal, digest: digestOf(text) });
    this.subscriptions.set(credential, held);
  }

  unsubscribe(principal: Principal, uri: string): void {
    const credential = credentialOf(principal);
    this.subscriptions.get(credential)?.delete(uri);
    if (this.subscriptions.get(credential)?.size === 0) this.subscriptions.delete(credential);
  }

  /** The URIs a credential is subscribed to (tests, and the answer to a subscribe). */
  subscribed(principal: Principal): string[] {
    return [...(this.subscriptions.get(credentialOf(principal))?.keys() ?? [])];
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** One round: every credential with an open stream checked, then its subscriptions read. Rounds never overlap. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const [credential, streams] of this.streams.byCredential()) {
        try {
          await streams[0]!.owner.recheck();
        } catch {
          // Revoked or expired since the stream opened: its streams end and its session state goes.
          for (const stream of streams) this.streams.end(stream.id);
          this.subscriptions.delete(credential);
          this.levels.delete(credential);
          continue;
        }
        const held = this.subscriptions.get(credential) ?? new Map<string, Subscription>();
        for (const [uri, subscription] of [...held]) {
          let digest: string | null;
          try {
            digest = digestOf(await this.read(subscription.principal, uri));
          } catch (error) {
            if (!(error instanceof AppError) || error.status !== 404) continue; // a passing failure: try again next round
            digest = null;
          }
          if (digest === subscription.digest) continue;
          for (const stream of streams) stream.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
          if (digest === null) held.delete(uri);
          else subscription.digest = digest;
        }
      }
    } finally {
      this.polling = false;
    }
  }
}
