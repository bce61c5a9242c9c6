/**
 * The legacy HTTP+SSE transport's streams (GET /mcp): each stream is announced with an `endpoint` event naming the
 * URI to POST to (`/api/v1/mcp?stream=<id>`); responses to the POSTs made there arrive on the stream as `message`
 * events. Streams belong to the organisation that opened them, send a keep-alive comment every 15 s, and are ended
 * cleanly when the service shuts down.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Principal } from '../auth/principal.js';
import type { Revision } from './protocol.js';

const KEEP_ALIVE_MS = 15_000;

/** Who opened a stream: its credential, and how to check that the credential still holds (not revoked or expired). */
export interface StreamOwner {
  principal: Principal;
  recheck(): Principal | Promise<Principal>;
}

/** A credential within its organisation's session: log levels and subscriptions belong to it. */
export const credentialOf = (principal: Principal) => `${principal.organisationId}/${principal.keyId ?? `user:${principal.userId}`}`;

export interface McpStream {
  id: string;
  organisationId: string;
  owner: StreamOwner;
  /** Set by the initialize posted on the stream; earlier messages are read as the headerless revision. */
  revision: Revision | null;
  send(message: unknown): void;
}

export class McpStreams {
  private readonly open = new Map<string, McpStream & { end(): void }>();

  /** Starts an event stream on `raw` (headers already sent); answers its id. */
  start(raw: ServerResponse, owner: StreamOwner, endpoint: (id: string) => string): McpStream {
    const id = randomBytes(16).toString('base64url');
    const write = (text: string) => {
      if (!raw.writableEnded) raw.write(text);
    };
    const timer = setInterval(() => write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    timer.unref();
    const stream = {
      id,
      organisationId: owner.principal.organisationId,
      owner,
      revision: null,
      send: (message: unknown) => write(`event: message\ndata: ${JSON.stringify(message)}\n\n`),
      end: () => {
        clearInterval(timer);
        this.open.delete(id);
        if (!raw.writableEnded) raw.end();
      },
    };
    this.open.set(id, stream);
    raw.once('close', () => stream.end());
    write(`event: endpoint\ndata: ${endpoint(id)}\n\n`);
    return stream;
  }

  /** The stream of an organisation, or undefined (gone, or another organisation's). */
  find(id: string, organisationId: string): McpStream | undefined {
    const stream = this.open.get(id);
    return stream?.organisationId === organisationId ? stream : undefined;
  }

  /** The open streams of a credential (credentialOf). */
  ofCredential(credential: string): McpStream[] {
    return [...this.open.values()].filter((stream) => credentialOf(stream.owner.principal) === credential);
  }

  /** Every open stream, by credential. */
  byCredential(): Map<string, McpStream[]> {
    const out = new Map<string, McpStream[]>();
    for (const stream of this.open.values()) {
      const credential = credentialOf(stream.owner.principal);
      const held = out.get(credential);
      if (held) held.push(stream);
      else out.set(credential, [stream]);
    }
    return out;
  }

  /** Ends a stream (its credential no longer holds). */
  end(id: string): void {
    this.open.get(id)?.end();
  }

  closeAll(): void {
    for (const stream of [...this.open.values()]) stream.end();
  }
}
