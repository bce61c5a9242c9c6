import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';

/** What a cursor carries: the sort key of the last row served and a digest of the filters it was made for. */
export interface CursorState {
  /** Sort-key values of the last item of the page (keyset pagination). */
  after: Array<string | number | boolean | null>;
  /** Digest of the list filters; a cursor is refused when the filters change under it. */
  scope: string;
}

/**
 * Opaque, tamper-proof cursors: base64url(JSON) + "." + truncated HMAC-SHA256. A client can neither read
 * meaning into them nor forge one that skips the tenant filter.
 */
export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  encode(state: CursorState): string {
    const body = Buffer.from(JSON.stringify([state.after, state.scope])).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  decode(cursor: string, expectedScope: string): CursorState {
    const [body, signature, extra] = cursor.split('.');
    const invalid = new AppError('invalid_cursor', 'The cursor is not one this service issued for this list; start again without it');
    if (body === undefined || signature === undefined || extra !== undefined) throw invalid;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid;
    const [after, scope] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [CursorState['after'], string];
    if (scope !== expectedScope) {
      throw new AppError('invalid_cursor', 'The cursor was issued for different filters; start again without it');
    }
    return { after, scope };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url').slice(0, 22);
  }
}
