import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A prefixed, time-ordered identifier (ULID layout: 48-bit milliseconds + 80 random bits, Crockford base32,
 * lower case). Ordering by id is creation order to the millisecond, which keyset pagination relies on.
 */
export function newId(prefix: string, now = Date.now()): string {
  let time = '';
  let ms = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[ms % 32] + time;
    ms = Math.floor(ms / 32);
  }
  const random = randomBytes(16);
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[random[i]! % 32];
  return `${prefix}_${time}${tail}`;
}

export const nowIso = () => new Date().toISOString();
