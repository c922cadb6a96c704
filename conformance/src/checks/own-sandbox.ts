// A sandbox merchant of a check's own, made with the partner's key, for what must never touch merchants A and B
// (a reset, a delete, an expiry): its credentials, a token, and the call options that act as it.
import { OperationId } from '@pgw/client/operations';
import { CheckSkipped, bodyOf, expectStatus, type CheckContext } from '../check.ts';
import type { CallOptions, Exchange } from '../http.ts';

export interface OwnSandbox {
  readonly merchantId: string;
  readonly name: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly cardProcessorId: string;
  readonly expiresAt: string;
  readonly createdOn: string;
  /** Call options acting as the sandbox merchant (its bearer token). */
  readonly as: CallOptions;
  /** Deletes it (once; a second call does nothing). */
  remove(): Promise<void>;
}

/** A token request with client credentials, answered as it comes. */
export function requestToken(ctx: CheckContext, clientId: string, clientSecret: string): Promise<Exchange> {
  return ctx.raw('POST', `${ctx.authUrl}/oauth2/token`, { form: { grant_type: 'client_credentials', scope: 'offline_access', client_id: clientId, client_secret: clientSecret } });
}

export async function ownSandbox(ctx: CheckContext, purpose: string, body: Record<string, unknown> = { expiresInSeconds: 900 }): Promise<OwnSandbox> {
  if (!ctx.identities.includes('partner')) throw new CheckSkipped(`needs a partner's key (a sandbox merchant of the check's own is ${purpose}, never A or B)`);
  const name = ctx.unique(purpose);
  const made = await ctx.call(OperationId.createSandboxMerchant, { as: 'partner', body: { name, ...body } });
  if (made.response?.status === 404) throw new CheckSkipped('the target makes no sandbox merchants (designed; 404)');
  expectStatus(made, 200, OperationId.createSandboxMerchant);
  const box = bodyOf(made);
  const merchantId = String(box.merchantId);
  let removed = false;
  const remove = async (): Promise<void> => {
    if (removed) return;
    removed = true;
    await ctx.call(OperationId.deleteSandboxMerchant, { as: 'partner', path: { merchantId } });
  };
  try {
    const issued = await requestToken(ctx, String(box.clientId), String(box.clientSecret));
    expectStatus(issued, 200, "a token of the check's sandbox merchant");
    return {
      merchantId, name, clientId: String(box.clientId), clientSecret: String(box.clientSecret), cardProcessorId: String(box.cardProcessorId), expiresAt: String(box.expiresAt), createdOn: String(box.createdOn),
      as: { as: 'none', headers: { authorization: `Bearer ${String(bodyOf(issued).access_token)}` } },
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}
