// Opt-in part of the HTTP benchmark (BENCH_CLOCK=1): one sandbox clock advance over 10,000 due ACH debits, on a
// sandbox merchant of its own, so that only those debits fall due (the demo merchant holds every earlier phase's).
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { webhookEvents } from '@pgw/client/webhooks';
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

/** A receiver that accepts connections and never answers (the goal holds "whatever the receivers do"). */
async function silentReceiver(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hooks`,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => { resolve(); });
    }),
  };
}

/**
 * Makes `due` ACH debits (20 at a time) on a fresh sandbox merchant with a webhook of every event type at a receiver
 * that never answers (each event is also a delivery), then times the advance by two days that
 * settles them.
 */
export async function clockAdvance(gateway: Gateway, achBody: (merchant: Merchant) => string, due = 10_000): Promise<string[]> {
  const merchant = await sandboxMerchant(gateway);
  const headers = { authorization: `Bearer ${await fetchToken(gateway.base, merchant)}`, 'content-type': 'application/json' };
  const receiver = await silentReceiver();
  try {
    return await advanceWithReceiver(gateway, merchant, headers, receiver.url, achBody, due);
  } finally {
    await receiver.close();
  }
}

async function advanceWithReceiver(gateway: Gateway, merchant: Merchant, headers: Record<string, string>, url: string, achBody: (merchant: Merchant) => string, due: number): Promise<string[]> {
  const res = await fetch(`${gateway.base}/v2/webhooks/endpoints`, { method: 'POST', headers, body: JSON.stringify({ name: 'silent', endpointUrl: url, eventTypes: webhookEvents.map((e) => e.name) }) });
  if (res.status !== 200) throw new Error(`creating a webhook answered ${String(res.status)}: ${(await res.text()).slice(0, 300)}`);
  await res.arrayBuffer();
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
    `clock advance over ${String(due)} due ACH debits of a fresh sandbox merchant on ${gateway.label} (made in ${createdIn.toFixed(1)} s), a webhook of every event type at a receiver that never answers`,
    `  advance by 2 days: ${took.toFixed(2)} s (goal < 2 s: ${took < 2 ? 'met' : 'not met'})   ran: ${JSON.stringify(ran)}`,
  ];
}
