// Where a webhook may send, checked the same way on create and update and before every ping and delivery
// attempt: the URL's rules (https; the sandbox also takes http:// to a loopback or private receiver it may
// reach), then its host resolved once and every address judged by the address policy. The attempt connects
// to the addresses checked here and nowhere else.
import type { ServerConfig } from '../config.ts';
import { PRODUCTION_POLICY, isLocalhostName, judge, parseAddress, type AddressPolicy, type Verdict } from '../platform/address-policy.ts';
import type { Deps } from '../platform/deps.ts';
import { systemResolver } from '../platform/outbound-http.ts';

/** What the check needs: the configuration and (tests) a resolver of its own. */
export type TargetDeps = Pick<Deps, 'config' | 'resolveHost'>;

/** The address policy of a server's configuration (production: public addresses only). */
export const policyOf = (config: ServerConfig): AddressPolicy => config.environment === 'production'
  ? PRODUCTION_POLICY
  : { allowLocal: config.webhookAllowLocal, allowNetworks: config.webhookAllowNetworks };

/** Where `localhost` names go: loopback by definition (RFC 6761), whatever a resolver would say. */
const LOCALHOST_ADDRESSES = ['127.0.0.1', '::1'] as const;

export type Target =
  | { ok: true; url: URL; addresses: readonly string[] }
  /** `dns`: the host did not resolve; `blocked`: the URL or an address is refused (said in `problem`). */
  | { ok: false; kind: 'dns' | 'blocked'; problem: string; url?: URL };

/** The URL's own rules (not its addresses): undefined when it may receive webhooks in this environment. */
export function urlProblem(text: string, config: Pick<ServerConfig, 'environment'>): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && config.environment === 'sandbox') return undefined;
  return config.environment === 'sandbox' ? 'must use https (the sandbox also takes http:// to a loopback or private receiver)' : 'must use https';
}

/** The sentence of a refused address: the literal as written, or (for a name) only the kind of address. */
function refusal(address: string, verdict: Verdict, literal: boolean, config: ServerConfig): string {
  // A name's addresses are not told: the answer would let a caller read the server's private DNS.
  const where = literal ? `points to ${address}, ${verdict.description},` : `resolves to ${verdict.description.replace(/ of [^,]+,/, ' of')},`;
  if (config.environment === 'production') return `${where} which production webhooks may not reach (public addresses only)`;
  // A NAT64, 6to4, Teredo or IPv4-compatible address is reached through a translator, never as a local receiver.
  if (verdict.translated) return `${where} which this sandbox may not reach: an address translated to IPv4 is reached only when the IPv4 address inside is public (or its network is listed)`;
  const local = verdict.range === 'loopback' || verdict.range === 'private';
  return local
    ? `${where} which this sandbox may not reach: it reaches loopback and private receivers only when it listens on loopback or its operator allows them`
    : `${where} which this sandbox may not reach (its operator can allow the network)`;
}

/**
 * Resolves the URL's host once and judges every address: the target to connect to, or why not. A name is
 * refused when any of its addresses is (a receiver cannot choose which one a client uses).
 */
export async function checkTarget(text: string, deps: TargetDeps): Promise<Target> {
  const problem = urlProblem(text, deps.config);
  if (problem) return { ok: false, kind: 'blocked', problem };
  const url = new URL(text);
  const literal = parseAddress(url.hostname) !== undefined;
  let addresses: readonly string[];
  if (literal) addresses = [url.hostname.replace(/^\[(.*)\]$/, '$1')];
  else if (isLocalhostName(url.hostname)) addresses = LOCALHOST_ADDRESSES;
  else {
    try {
      addresses = await (deps.resolveHost ?? systemResolver)(url.hostname);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { ok: false, kind: 'dns', problem: 'names a host that does not resolve', url };
  }
  const policy = policyOf(deps.config);
  const verdicts = addresses.map((a) => judge(a, policy));
  const refused = verdicts.findIndex((v) => !v.allowed);
  const verdict = verdicts[refused];
  if (verdict) return { ok: false, kind: 'blocked', problem: refusal(addresses[refused] ?? '', verdict, literal, deps.config), url };
  // Plain http only inside the sandbox's own reach: never across the internet.
  if (url.protocol === 'http:' && verdicts.some((v) => v.range === 'public')) {
    return { ok: false, kind: 'blocked', problem: 'must use https (the sandbox takes http:// only to a loopback or private receiver)', url };
  }
  return { ok: true, url, addresses };
}
