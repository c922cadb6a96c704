// The delivery-log example of server/README.md (Webhooks) lists what `pgw logs` lists: the same deliveries in the
// same order, newest first. Its query is read from that README and sent as written.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, pgw, startGateway, type Gateway } from './helpers.ts';

/** The path and query of the `curl … "$B/v2/webhooks/delivery-logs?…"` line (not the export) of server/README.md's Webhooks section. */
function readmeQuery(): string {
  const readme = readFileSync(path.join(ROOT, 'server', 'README.md'), 'utf8');
  const section = readme.split('\n## Webhooks\n')[1]?.split('\n## ')[0] ?? '';
  const query = /curl -s "\$B(\/v2\/webhooks\/delivery-logs\?[^"]*)"/.exec(section)?.[1];
  if (query === undefined) throw new Error('server/README.md: no curl of $B/v2/webhooks/delivery-logs?… in the Webhooks section');
  return query;
}

describe('the delivery-log example of server/README.md', () => {
  let g: Gateway;
  beforeAll(async () => { g = await startGateway(); });
  afterAll(async () => { await g.close(); });

  it('shows the newest deliveries first, as pgw logs does', async () => {
    const h = await g.s.as(0);
    const hook = await request(g.s.app).post('/v2/webhooks/endpoints').set(h)
      .send({ name: 'closed port', endpointUrl: 'http://127.0.0.1:9/hooks', eventTypes: ['payment.card.captured'] });
    expect(hook.status, hook.text).toBe(200);
    // Seven deliveries a minute apart on the merchant's clock: more than the example's page of 5.
    for (let i = 0; i < 7; i++) {
      const sale = await request(g.s.app).post('/pay-api/v1/transactions/card/sale').set(h)
        .send({ amount: 10 + i, card: { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030, securityCode: '123' } });
      expect(sale.status, sale.text).toBe(200);
      await request(g.s.app).post('/sandbox/v1/clock/advance').set(h).send({ seconds: 60 }).expect(200);
    }
    const query = readmeQuery();
    const pageSize = Number(new URL(query, 'http://x').searchParams.get('pageSize'));
    const example = await request(g.s.app).get(query).set(h);
    expect(example.status, example.text).toBe(200);
    const shown = (example.body as { items: { id: string; createdOn: string }[] }).items;
    const logs = await pgw(['logs', '--limit', String(pageSize)], { PGW_CONFIG: g.config });
    expect(logs.code, logs.stderr).toBe(0);
    const listed = logs.stdout.split('\n').slice(1).map((l) => l.match(/[0-9a-f-]{36}/)?.[0]).filter((id) => id !== undefined);
    expect(listed).toHaveLength(pageSize);
    expect(shown.map((e) => e.id)).toEqual(listed);
    expect(shown.map((e) => e.createdOn)).toEqual(shown.map((e) => e.createdOn).sort().reverse());
  });
});
