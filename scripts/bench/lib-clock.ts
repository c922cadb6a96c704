// Opt-in part of the HTTP benchmark (BENCH_CLOCK=1): one sandbox clock advance over 10,000 due ACH debits, on a
// sandbox merchant of its own, so that only those debits fall due (the demo merchant holds every earlier phase's).
import { readFileSync } from 'node:fs';
import { fetchToken, type Gateway, type Merchant } from './lib-servers.ts';

/** A fresh sandbox merchant of the gateway's partner (POST /sandbox/v1/merchants): its key and ACH processor. */
async function sandboxMerchant(gateway: Gateway): Promise<Merchant> {
  const partner = (JSON.parse(readFileSync(gateway.credentialsFile, 'utf8')) as { partner?: { clientId?: unknown; clientSecret?: unknown } }).partner;
  if (typeof partner?.clientId !== 'string' || typeof partner.clientSecret !== 'string') throw new Error(`${gateway.credentialsFile} holds no partner key`);
  const token = await fetchToken(gateway.base, { clientId: partner.clientId, clientSecret: partner.clientSecret, achProcessorId: '' });
  const res = await fetch(`${gateway.base}/sandbox/v1/merchants`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'clock advance benchmark', expiresInSeconds: 3600 }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`creating a sandbox merchant answered ${String(res.status)}: ${text.slice(0, 300)}`);
  const made = JSON.parse(text) as { clientId: string; clientSecret: string; achProcessorId: string };
  return { clientId: made.clientId, clientSecret: made.clientSecret, achProcessorId: made.achProcessorId };
}

/** Makes `due` ACH debits (20 at a time) on a fresh sandbox merchant, then times the advance by two days that settles them. */
export async function clockAdvance(gateway: Gateway, achBody: (merchant: Merchant) => string, due = 10_000): Promise<string[]> {
  const merchant = await sandboxMerchant(gateway);
  const headers = { authorization: `Bearer ${await fetchToken(gateway.base, merchant)}`, 'content-type': 'application/json' };
  const body = achBody(merchant);
  let made = 0;
  const started = Date.now();
  await Promise.all(Array.from({ length: 20 }, async () => {
    while (made < due) {
      made += 1;
      const res = await fetch(`${gateway.base}/pay-api/v1/transactions/ach/payment`, { method: 'POST', headers, body });
      if (res.status !== 200) throw new Error(`ACH debit answered ${String(res.status)}: ${(await res.text()).slice(0, 300)}`);
      await res.arrayBuffer();
    }
  }));
  const createdIn = (Date.now() - started) / 1000;
  const advanceStarted = Date.now();
  const advance = await fetch(`${gateway.base}/sandbox/v1/clock/advance`, { method: 'POST', headers, body: JSON.stringify({ seconds: 2 * 86_400 }) });
  const took = (Date.now() - advanceStarted) / 1000;
  const text = await advance.text();
  if (advance.status !== 200) throw new Error(`clock advance answered ${String(advance.status)}: ${text.slice(0, 300)}`);
  const ran = (JSON.parse(text) as { ran?: Record<string, number> }).ran ?? {};
  return [
    `clock advance over ${String(due)} due ACH debits of a fresh sandbox merchant on ${gateway.label} (made in ${createdIn.toFixed(1)} s)`,
    `  advance by 2 days: ${took.toFixed(2)} s (goal < 2 s: ${took < 2 ? 'met' : 'not met'})   ran: ${JSON.stringify(ran)}`,
  ];
}
