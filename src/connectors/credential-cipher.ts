import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;

/**
 * Encrypts connector credentials at rest: AES-256-GCM with a fresh 96-bit IV per write, the connector id as
 * additional authenticated data (a ciphertext copied onto another connector's row does not decrypt), and a
 * version prefix so the scheme can change. Stored as `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export class CredentialCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the credential key must be 32 bytes');
  }

  encrypt(connectorId: string, credentials: Record<string, unknown>): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(connectorId));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** Throws when the text was not sealed by this key for this connector (tampered, moved, or another key). */
  decrypt(connectorId: string, stored: string): Record<string, unknown> {
    const [version, iv, tag, sealed] = stored.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || sealed === undefined) throw new Error('unknown credential format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(connectorId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
  }
}
