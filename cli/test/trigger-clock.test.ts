// Built-in triggers work at any sandbox clock: `${now}` in a fixture is the merchant's business clock, which
// the server judges due dates by (a due date 30 days from wall time is in the past once the clock is ahead).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgw, startGateway, type Gateway } from './helpers.ts';

describe('pgw trigger after the sandbox clock moved ahead', () => {
  let g: Gateway;
  let env: Record<string, string>;
  beforeAll(async () => {
    g = await startGateway();
    env = { PGW_CONFIG: g.config };
  });
  afterAll(async () => { await g.close(); });

  it.each(['invoice.created', 'invoice.paid'])('%s: the invoice is due 30 days after the business clock, not the wall clock', async (type) => {
    // Global options before the command, as CI recipes write them.
    const advanced = await pgw(['--merchant', '0', 'clock', 'advance', '90d'], env);
    expect(advanced.code, advanced.stderr).toBe(0);
    const clock = await request(g.s.app).get('/sandbox/v1/clock').set(await g.s.as(0));
    const businessNow = Date.parse((clock.body as { now: string }).now);
    expect(businessNow - Date.now()).toBeGreaterThan(80 * 86_400_000);

    const run = await pgw(['trigger', type], env);
    expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
    const id = /invoice ([0-9a-f-]{36})/.exec(run.stdout)?.[1];
    expect(id, run.stdout).toBeDefined();
    const invoice = await request(g.s.app).get(`/pay-int-api/invoices/${id ?? ''}`).set(await g.s.as(0));
    expect(invoice.status, invoice.text).toBe(200);
    const due = Date.parse((invoice.body as { dueDate: string }).dueDate);
    // 30 days after the business clock (a day's slack either way for the date's rounding), far from wall time.
    expect(Math.abs(due - (businessNow + 30 * 86_400_000))).toBeLessThan(2 * 86_400_000);
    if (type === 'invoice.created') expect((invoice.body as { status: unknown }).status).not.toBe('PastDue');
  });
});
