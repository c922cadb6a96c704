// Sandbox mode: the run creates its own two merchants (A and B) as the partner, runs every check inside them and
// deletes them at the end, so a merchant the suite was given is never touched. The sandboxes also expire on
// their own (an hour), so a run killed outright (SIGKILL) leaves nothing behind for long.
import { OperationId } from '@pgw/client/operations';
import { SpecReader } from './negative-cases.ts';
import { describeNetworkError } from './network-errors.ts';
import type { Target } from './runner.ts';
import type { Spec } from './spec.ts';
import { send } from './transport.ts';

type Pair = { clientId: string; clientSecret: string; userEmail?: string; userPassword?: string };
type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How long a run's sandboxes live if nothing deletes them: longer than a run, short enough not to pile up. */
export const SANDBOX_TTL_SECONDS = 3600;

export class SandboxUnavailable extends Error {}

export interface SandboxSession {
  /** The target with merchants A and B replaced by the run's sandboxes (the partner kept). */
  target: Target;
  merchantIds: string[];
  /** Deletes the sandboxes (idempotent: a second call does nothing); the ids it could not delete. */
  close(): Promise<string[]>;
}

const parsed = (text: string): unknown => {
  try { return JSON.parse(text); } catch { return text; /* not JSON: kept as text */ }
};

async function call(target: Target, timeoutMs: number, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await send({
    method,
    url: `${target.baseUrl}${path}`,
    headers: { ...target.headers, accept: 'application/json', authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    timeoutMs,
  });
  return { status: res.status, body: parsed(res.text) };
}

async function partnerToken(target: Target, partner: Pair, timeoutMs: number): Promise<string> {
  const res = await send({
    method: 'POST',
    url: `${target.authUrl}/oauth2/token`,
    headers: { ...target.headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: partner.clientId, client_secret: partner.clientSecret }).toString(),
    timeoutMs,
  });
  const answer = parsed(res.text);
  const body = (isObject(answer) ? answer : {}) as { access_token?: unknown; error?: unknown };
  if (res.status < 200 || res.status > 299 || typeof body.access_token !== 'string') {
    throw new SandboxUnavailable(`no token for the partner (the token service answered ${String(res.status)}${typeof body.error === 'string' ? ` ${body.error}` : ''})`);
  }
  return body.access_token;
}

const said = (answer: { status: number; body: unknown }): string =>
  `${String(answer.status)}${isObject(answer.body) && typeof answer.body.errorCode === 'string' ? ` ${answer.body.errorCode}` : ''}${isObject(answer.body) && typeof answer.body.message === 'string' ? ` (${answer.body.message})` : ''}`;

/**
 * Creates the run's two sandbox merchants. Throws SandboxUnavailable when the spec or the target does not offer
 * sandboxes, or there are no partner credentials; whatever was created before a failure is deleted again.
 */
export async function openSandboxes(spec: Spec, target: Target, timeoutMs: number, runName: string): Promise<SandboxSession> {
  const partner = target.credentials.partner;
  if (!partner) throw new SandboxUnavailable('no partner credentials (--partner-client-id/--partner-client-secret, or the credentials file)');
  for (const op of [OperationId.createSandboxMerchant, OperationId.deleteSandboxMerchant]) if (!spec.operations.has(op)) throw new SandboxUnavailable(`the spec has no ${op}`);
  const path = spec.operation(OperationId.createSandboxMerchant).path;
  let token: string;
  try {
    token = await partnerToken(target, partner, timeoutMs);
  } catch (error) {
    if (error instanceof SandboxUnavailable) throw error;
    throw new SandboxUnavailable(`the token service cannot be reached: ${describeNetworkError(error, timeoutMs)}`);
  }
  const made: { id: string; pair: Pair }[] = [];
  const close = async (): Promise<string[]> => {
    const left: string[] = [];
    for (const { id } of made.splice(0)) {
      const answer = await call(target, timeoutMs, 'DELETE', `${path}/${encodeURIComponent(id)}`, token).catch(() => undefined);
      if (answer === undefined || (answer.status !== 404 && (answer.status < 200 || answer.status > 299))) left.push(id);
    }
    return left;
  };
  // A management user for each, where the spec offers one: the checks of the password grant need it.
  const withUser = requestProperties(spec, OperationId.createSandboxMerchant).includes('managementUser') ? { managementUser: true } : {};
  try {
    for (const who of ['A', 'B']) {
      const answer = await call(target, timeoutMs, 'POST', path, token, { name: `${runName} ${who}`, expiresInSeconds: SANDBOX_TTL_SECONDS, ...withUser });
      const body = isObject(answer.body) ? answer.body : {};
      if (answer.status < 200 || answer.status > 299 || typeof body.merchantId !== 'string' || typeof body.clientId !== 'string' || typeof body.clientSecret !== 'string') {
        throw new SandboxUnavailable(`${spec.operation(OperationId.createSandboxMerchant).method.toUpperCase()} ${path} answered ${said(answer)}`);
      }
      const user = typeof body.userEmail === 'string' && typeof body.userPassword === 'string' ? { userEmail: body.userEmail, userPassword: body.userPassword } : {};
      made.push({ id: body.merchantId, pair: { clientId: body.clientId, clientSecret: body.clientSecret, ...user } });
    }
  } catch (error) {
    await close();
    if (error instanceof SandboxUnavailable) throw error;
    throw new SandboxUnavailable(`creating a sandbox failed: ${describeNetworkError(error, timeoutMs)}`);
  }
  const [a, b] = made;
  if (!a || !b) throw new SandboxUnavailable('two sandboxes expected');
  const ids = made.map((m) => m.id);
  return { target: { ...target, credentials: { A: a.pair, B: b.pair, partner } }, merchantIds: ids, close };
}

/** The properties an operation's JSON request body declares. */
function requestProperties(spec: Spec, operationId: string): string[] {
  const reader = new SpecReader(spec.document);
  const found = reader.operation(operationId);
  const body = found ? reader.jsonBody(found.op) : undefined;
  const properties = body ? reader.flat(body.schema).properties : undefined;
  return isObject(properties) ? Object.keys(properties) : [];
}
