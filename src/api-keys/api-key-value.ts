import { createHash, randomBytes } from 'node:crypto';

/** A new key value: `pk_` + 32 random bytes, base64url (43 characters). Shown once, never stored. */
export function generateApiKeyValue(): string {
  return `pk_${randomBytes(32).toString('base64url')}`;
}

/**
 * Keys are 256-bit random values, so a fast digest is the right storage hash (no dictionary to slow down);
 * SHA-256 hex is also the lookup key.
 */
export function hashApiKey(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** What lists show so a person can tell keys apart: the prefix and 8 characters. */
export const displayPrefix = (value: string) => value.slice(0, 11);
