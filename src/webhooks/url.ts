import { isIP } from 'node:net';
import { AppError } from '../errors.js';
import { isPublicAddress } from './address-policy.js';
import { HostAllowList } from './allow-hosts.js';

/** Long enough for any sensible receiver URL with a token in it; short enough to store and log. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

export interface WebhookUrlOptions {
  /** Operator allow-list (CAUSA_WEBHOOK_ALLOW_HOSTS); see HostAllowList for the matching rules. */
  allowHosts?: readonly string[] | HostAllowList;
}

/**
 * Submit-time check of a `webhookUrl`: http or https, no credentials in the URL, a host, at most 2048 characters.
 * A literal IP host that is not public is refused now, since it cannot change; host names are judged again at
 * delivery, after DNS resolution, because what they resolve to can.
 * Throws AppError('validation_failed') pointing at /webhookUrl.
 */
export function parseWebhookUrl(raw: string, options: WebhookUrlOptions = {}): URL {
  const allowList = options.allowHosts instanceof HostAllowList ? options.allowHosts : new HostAllowList(options.allowHosts ?? []);
  const problem = webhookUrlProblem(raw, allowList);
  if (typeof problem === 'string') {
    throw new AppError('validation_failed', `webhookUrl: ${problem}`, { errors: [{ location: 'body/webhookUrl', message: problem }] });
  }
  return problem;
}

/** The URL when acceptable, otherwise a sentence saying why not (shared with delivery, which must not throw). */
export function webhookUrlProblem(raw: string, allowList: HostAllowList): URL | string {
  if (typeof raw !== 'string' || raw.trim() === '') return 'must be a non-empty URL';
  if (raw.length > WEBHOOK_URL_MAX_LENGTH) return `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  // Credentials in the URL would be sent to (and logged by) whoever answers; the spec says delivery is unsigned.
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.hostname === '') return 'must name a host';
  const address = literalAddress(url);
  if (address !== undefined && !isPublicAddress(address) && !allowList.admits(url)) {
    return `names ${address}, which is not a public address`;
  }
  return url;
}

/** The IP address a URL names literally (brackets of an IPv6 host removed), or undefined for a host name. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') && url.hostname.endsWith(']') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? undefined : host;
}
