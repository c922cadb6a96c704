// The fixture steps that need the user's consent (`pgw trigger --allow-destructive`): those that destroy what
// cannot be had back, make a credential, or send the merchant's events somewhere else. Judged by operation, in
// one table; a user's fixture with such a step is refused before anything is sent unless the flag is given. A
// built-in fixture's are what its event type names (api_key.created makes an API key): --list marks them.
import { isClock, resolve, routeOf, type Fixture, type Json, type JsonObject, type OperationStep } from './fixtures.ts';

interface Rule {
  /** The operation's method and path (checked against the route table by the tests: a renamed operation fails them). */
  method: string;
  path: string;
  /** What the step does, in the words --list and the refusal print. */
  does: string;
  /** Only when this says so (the request's body, known before the run, or undefined when it cannot be). */
  when?: (body: Json | undefined) => boolean;
}

/** A webhook whose endpointUrl is not known, before the run, to be on loopback. */
const notLoopback = (body: Json | undefined): boolean => {
  const url = body !== null && typeof body === 'object' && !Array.isArray(body) ? body.endpointUrl : undefined;
  return typeof url !== 'string' || !isLoopbackUrl(url);
};

/** The operations that need consent, by operationId. */
export const NEEDS_CONSENT: Readonly<Record<string, Rule>> = {
  // Wipes the merchant's customers, payment methods, transactions, invoices, webhooks, events and deliveries,
  // and puts its clock back: a whole sandbox's state, gone, not one record a fixture made.
  resetSandbox: { method: 'post', path: '/sandbox/v1/reset', does: 'resets the sandbox (removes all the merchant\'s records)' },
  // Deletes a sandbox merchant and everything it held, and its credentials stop working (a CI job's, say).
  deleteSandboxMerchant: { method: 'delete', path: '/sandbox/v1/merchants/{merchantId}', does: 'deletes a sandbox merchant and everything it held' },
  // Makes a merchant with an API key of its own: a new credential, and one of the partner's 20 sandboxes.
  createSandboxMerchant: { method: 'post', path: '/sandbox/v1/merchants', does: 'creates a sandbox merchant with an API key of its own' },
  // Makes a credential that signs in as the merchant.
  createApiKey: { method: 'post', path: '/pay-api/v1/merchants/tokens', does: 'creates an API key' },
  // Revokes a credential at once: the key may be the one another integration, or this CLI, signs in with.
  deleteApiKey: { method: 'delete', path: '/pay-api/v1/merchants/tokens/{clientId}', does: 'revokes an API key' },
  // Sends every event of the chosen types (payments, customers' data) to the URL: off this machine unless loopback.
  createWebhookEndpoint: { method: 'post', path: '/v2/webhooks/endpoints', does: 'registers a webhook endpoint off this machine (not 127.0.0.0/8, ::1 or localhost)', when: notLoopback },
  // The same, for an existing webhook: its events (and its Pending deliveries) go to the new URL.
  updateWebhookEndpoint: { method: 'put', path: '/v2/webhooks/endpoints/{webhookId}', does: 'points a webhook endpoint off this machine (not 127.0.0.0/8, ::1 or localhost)', when: notLoopback },
};

/**
 * Whether the URL's host is on loopback: localhost, 127.0.0.0/8 in any spelling the URL parser reads as such
 * (`2130706433`, `0x7f.1` become 127.0.0.1), ::1, or ::ffff:127.x.x.x. A URL that does not parse is not.
 */
export function isLoopbackUrl(text: string): boolean {
  let host: string;
  try {
    host = new URL(text).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host === '[::1]') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}\]$/.exec(host);
  return mapped !== null && Number.parseInt(mapped[1] ?? '', 16) >> 8 === 127;
}

export interface ConsentStep { index: number; name: string; operation: string; does: string }

/** The rule of an operation step, and whether it applies to this body. */
export function consentFor(step: OperationStep, body: Json | undefined): Rule | undefined {
  const rule = NEEDS_CONSENT[step.operation];
  if (rule === undefined) return undefined;
  return rule.when === undefined || rule.when(body) ? rule : undefined;
}

/**
 * The steps of a fixture that need consent, judged before the run: a body that names an earlier step's answer
 * is not known yet, so a webhook's URL there counts as off this machine.
 */
export function stepsNeedingConsent(fixture: Fixture, args: JsonObject = {}): ConsentStep[] {
  const found: ConsentStep[] = [];
  for (const [index, step] of fixture.steps.entries()) {
    if (isClock(step) || NEEDS_CONSENT[step.operation] === undefined) continue;
    let body: Json | undefined;
    try {
      body = resolve(step.body, { args: { ...fixture.args, ...args }, steps: new Map() }, `step ${String(index + 1)}`);
    } catch {
      body = undefined;
    }
    const rule = consentFor(step, body);
    if (rule !== undefined) found.push({ index, name: step.name, operation: step.operation, does: rule.does });
  }
  return found;
}

/** The table's entries as the route table has them (a test checks they agree). */
export const consentRoutes = (): { operationId: string; table: string; routes: string }[] =>
  Object.entries(NEEDS_CONSENT).map(([operationId, rule]) => {
    const route = routeOf(operationId);
    return { operationId, table: `${rule.method} ${rule.path}`, routes: route === undefined ? 'none' : `${route.method} ${route.path}` };
  });
