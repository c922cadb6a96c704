// Throttling of the token services: repeated wrong client secrets must end in 429 with Retry-After, within a
// bounded number of attempts, without locking out the suite's own credentials.
//
// Design: the wrong secrets are sent for a client id that is not one the suite runs with, so that a gateway
// that counts failures per client id (and source address) throttles that id alone: a fresh API key of merchant
// A made for the check (deleted afterwards), or, where the spec offers no way to make one, a client id that does
// not exist. After the 429 the check asks for a token with merchant A's real credentials from the same
// address: a gateway whose limit locks every client of an address out (a denial of service anyone behind the
// same NAT could cause) fails here. The check exists only when the spec documents 429 on a token service; a
// user who does not want a gateway throttled skips it with `--skip auth/token_throttling`.
import { OperationId } from '@pgw/client/operations';
import { bodyOf, CheckFailure, failWithAll, type Check, type CheckContext } from '../check.ts';
import type { Exchange } from '../http.ts';
import { SpecReader } from '../negative-cases.ts';
import type { Spec } from '../spec.ts';

/** Attempts sent at most per token service: several times the usual limits (Auth0 10, Okta 5 a minute). */
export const MAX_ATTEMPTS = 50;

/** A Retry-After value: delay-seconds, or an HTTP-date (RFC 9110 10.2.3). */
export const validRetryAfter = (value: string | undefined): boolean =>
  value !== undefined && (/^\d+$/.test(value.trim()) || (/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value.trim()) && Number.isFinite(Date.parse(value))));

/** What is wrong with a 429 answer, or undefined: Retry-After, and the standard body (rate_limited) or an OAuth error. */
export function tooManyProblem(exchange: Exchange): string | undefined {
  const headers = exchange.response?.headers ?? {};
  if (!validRetryAfter(headers['retry-after'])) return `the 429 has no valid Retry-After (${JSON.stringify(headers['retry-after'] ?? null)})`;
  const body = bodyOf(exchange);
  const standard = body.errorCode === 'rate_limited' && (body.statusCode ?? 429) === 429;
  const oauth = typeof body.error === 'string' && body.error !== '';
  return standard || oauth ? undefined : `the 429 body is neither the standard body with errorCode rate_limited nor an OAuth error: ${exchange.response?.text.slice(0, 200) ?? ''}`;
}

type Form = Record<string, string>;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The first documented form example of a token operation (the grant it serves: client credentials on the
 * merchants' service, the password grant on the CRM's), or a client credentials grant where it shows none.
 */
function exampleForm(reader: SpecReader, operationId: string): Form {
  const found = reader.operation(operationId);
  const body = found ? reader.deref(found.op.requestBody) : undefined;
  const media = isObject(body) && isObject(body.content) ? body.content['application/x-www-form-urlencoded'] : undefined;
  const examples = isObject(media) && isObject(media.examples) ? Object.values(media.examples).map((e) => reader.deref(e)) : [];
  const value = isObject(media) && isObject(media.example) ? media.example : examples.map((e) => (isObject(e) ? e.value : undefined)).find(isObject);
  const form = isObject(value) ? Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
  return form.grant_type === undefined ? { grant_type: 'client_credentials', scope: 'offline_access' } : form;
}

/** The token operations of the spec that document 429, with the URL each is served at and its grant's form. */
function throttledServices(spec: Spec): { operationId: string; form: Form; url: (ctx: CheckContext) => string | undefined }[] {
  const reader = new SpecReader(spec.document);
  return [...spec.operations.values()].filter((op) => op.path.includes('oauth2') && op.responses['429'] !== undefined).map((op) => ({
    operationId: op.operationId,
    form: exampleForm(reader, op.operationId),
    // The CRM token service is addressed as {crm_auth_url}/oauth2/token; the spec writes it /crm/oauth2/token.
    url: (ctx) => (op.path.startsWith('/crm') ? (ctx.crmAuthUrl === undefined ? undefined : `${ctx.crmAuthUrl}/oauth2/token`) : `${ctx.authUrl}${op.path}`),
  }));
}

/** A client id to throttle that is not the suite's: a fresh API key of merchant A, or one that does not exist. */
async function throwawayClient(ctx: CheckContext): Promise<{ clientId: string; remove: () => Promise<void> }> {
  if (ctx.spec.operations.has(OperationId.createApiKey) && ctx.spec.operations.has(OperationId.deleteApiKey)) {
    const made = bodyOf(await ctx.call(OperationId.createApiKey, { body: { name: ctx.unique('throttle') } }));
    if (typeof made.clientId === 'string') {
      const clientId = made.clientId;
      return { clientId, remove: async () => { await ctx.call(OperationId.deleteApiKey, { path: { clientId } }); } };
    }
  }
  return { clientId: ctx.unique('conformance-throttle-'), remove: () => Promise.resolve() };
}

export function throttleChecks(spec: Spec): Check[] {
  const services = throttledServices(spec);
  if (services.length === 0) return [];
  return [{
    id: 'auth/token_throttling',
    group: 'auth',
    title: `repeated wrong client secrets answer 429 with Retry-After within ${String(MAX_ATTEMPTS)} attempts, and the suite's own client keeps its tokens`,
    tags: ['Authentication', ...services.map((s) => s.operationId)],
    designed: true,
    run: async (ctx) => {
      const a = ctx.credentials.A;
      if (!a) throw new Error('merchant A credentials are required');
      const client = await throwawayClient(ctx);
      const failures: [string, Exchange | undefined][] = [];
      try {
        for (const service of services) {
          const url = service.url(ctx);
          if (url === undefined) continue;
          let last: Exchange | undefined;
          // The grant the service documents, its credentials wrong: the throwaway client id, a made-up user
          // name (a user, like a client, is an identity the gateway counts failures for), wrong secrets.
          const user = `${ctx.unique('throttle')}@example.com`;
          for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            const wrong = `wrong-${String(attempt)}-${ctx.unique('s')}`;
            const form: Form = { ...service.form, client_id: client.clientId, client_secret: wrong };
            if ('username' in form) form.username = user;
            if ('password' in form) form.password = wrong;
            last = await ctx.raw('POST', url, { form });
            const status = last.response?.status;
            if (status === 429) break;
            // A malformed request is not a failed credential check: it would never be throttled.
            if (status === 400 && bodyOf(last).error === 'invalid_request') throw new CheckFailure(`${service.operationId}: the documented grant with wrong credentials was refused as malformed (invalid_request), not as wrong credentials`, last);
            if (status !== 400 && status !== 401) throw new CheckFailure(`${service.operationId}: wrong credentials answer 400 or 401 until they are throttled (429), not ${String(status ?? last.error)}`, last);
          }
          if (last?.response?.status !== 429) failures.push([`${service.operationId}: ${String(MAX_ATTEMPTS)} wrong client secrets for one client id never answered 429 (the last answered ${String(last?.response?.status)})`, last]);
          else {
            const problem = tooManyProblem(last);
            if (problem !== undefined) failures.push([`${service.operationId}: ${problem}`, last]);
          }
        }
        // The suite's own client, from the same address, is not locked out.
        const own = await ctx.raw('POST', `${ctx.authUrl}/oauth2/token`, { form: { grant_type: 'client_credentials', scope: 'offline_access', client_id: a.clientId, client_secret: a.clientSecret } });
        if (own.response?.status === 429) failures.push(['throttling the wrong secrets of another client id locked out merchant A\'s own client from the same address', own]);
        else if (own.response?.status !== 200) failures.push([`merchant A's own client credentials after another client id was throttled: expected 200, got ${String(own.response?.status ?? own.error)}`, own]);
      } finally {
        await client.remove();
      }
      failWithAll(failures);
    },
  }];
}
