import type { ConnectorCredentials } from '../../schemas/connectors.js';

/** Secrets shorter than this are not scrubbed from messages: replacing every "ab" would garble them unreadable. */
const SHORTEST_SCRUBBED = 4;

/** The values of credentials that must never appear in an answer or log: passwords, keys, connection strings. */
export function secretsOf(credentials: ConnectorCredentials): string[] {
  const secrets: string[] = [];
  if ('password' in credentials && credentials.password !== undefined) secrets.push(credentials.password);
  if ('connectionString' in credentials) {
    secrets.push(credentials.connectionString);
    const url = URL.canParse(credentials.connectionString) ? new URL(credentials.connectionString) : null;
    if (url !== null && url.password !== '') secrets.push(url.password, decodeURIComponent(url.password));
  }
  return secrets.filter((secret) => secret.length >= SHORTEST_SCRUBBED).sort((a, b) => b.length - a.length);
}

/** The message with every secret (longest first, so a secret inside another goes with it) replaced by ***. */
export function withoutSecrets(message: string, secrets: string[]): string {
  return secrets.reduce((text, secret) => text.replaceAll(secret, '***'), message);
}
