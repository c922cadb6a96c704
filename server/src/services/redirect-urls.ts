// Where a payment link's page may send the payer after paying (redirectUrl): the webhook endpoints' URL rules
// (https, no credentials; the sandbox's http:// to loopback only), and outside the sandbox a host written as an
// address judged by the production address policy. No name is resolved: the payer's browser goes there, never
// this server, so a name is not this server's to judge.
import type { ServerConfig } from '../config.ts';
import { PRODUCTION_POLICY, isLocalhostName, isLoopbackHost, judge, parseAddress } from '../platform/address-policy.ts';

/** Why the URL may not be a link's redirect in this environment; undefined when it may. */
export function redirectUrlProblem(text: string, config: Pick<ServerConfig, 'environment'>): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  const sandbox = config.environment === 'sandbox';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (url.protocol === 'http:') {
    if (sandbox && isLoopbackHost(host)) return undefined;
    return sandbox ? 'must use https (the sandbox takes http:// only to a loopback host: localhost, 127.0.0.1, [::1])' : 'must use https';
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (sandbox) return undefined;
  if (isLocalhostName(host)) return 'names localhost, which a production payment link may not send a payer to (public addresses only)';
  if (parseAddress(host) === undefined) return undefined;
  const verdict = judge(host, PRODUCTION_POLICY);
  return verdict.allowed ? undefined : `points to ${host}, ${verdict.description}, which a production payment link may not send a payer to (public addresses only)`;
}
