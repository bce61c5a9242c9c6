import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The service secret: CAUSA_SECRET_KEY when given, else (embedded profile) a key generated once into the data
 * directory so that cursors and encrypted credentials survive restarts.
 */
export function resolveSecretKey(configured: Buffer | null, dataDir: string): Buffer {
  if (configured !== null) return configured;
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process of this data dir won the race: use its key.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    throw error;
  }
  chmodSync(file, 0o600);
  return key;
}

/** A sub-key for one purpose, so no two features ever share key material (HMAC as a KDF, RFC 5869 style). */
export function deriveKey(secret: Buffer, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`causa:${purpose}`).digest();
}
