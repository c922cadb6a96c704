// Opt-in part of the HTTP benchmark (BENCH_CLOCK=1): one sandbox clock advance over 10,000 due ACH debits.
import type { Gateway } from './lib-servers.ts';

/** Makes `due` ACH debits (20 at a time), then times the advance by two days that settles them. */
export async function clockAdvance(gateway: Gateway, achBody: string, due = 10_000): Promise<string[]> {
  const headers = await gateway.headers();
  const before = (await (await fetch(`${gateway.base}/sandbox/v1/clock`, { headers })).json()) as { offsetSeconds: number };
  let made = 0;
  const started = Date.now();
  await Promise.all(Array.from({ length: 20 }, async () => {
    while (made < due) {
      made += 1;
      const res = await fetch(`${gateway.base}/pay-api/v1/transactions/ach/payment`, { method: 'POST', headers, body: achBody });
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
    `clock advance over due ACH debits on ${gateway.label} (${String(due)} made in ${createdIn.toFixed(1)} s, clock at +${String(before.offsetSeconds)} s before)`,
    `  advance by 2 days: ${took.toFixed(2)} s   ran: ${JSON.stringify(ran)}`,
  ];
}
