// Concurrent commands on one transaction act once: the row lock (PostgreSQL FOR UPDATE; SQLite's single
// writer) makes the others see the changed status and answer its business error. Captures, voids and
// refunds, each fired ten times at once, and a clock advance racing the commands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startServer, type TestServer } from '../harness.ts';
import { achDebitBody, cardBody, paymentCalls, transactionEvents, type Headers, type Result } from './payment-helpers.ts';

describe.each(engines())('concurrent payment commands (%s)', (engine) => {
  let s: TestServer;
  let h: Headers;
  const pay = paymentCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
  });
  afterAll(async () => { await s.close(); });

  const approvedOnce = (results: Result[]): void => {
    expect(results.filter((r) => r.responseCode === '000')).toHaveLength(1);
    for (const r of results.filter((x) => x.responseCode !== '000')) expect(r.responseCode).toBe('101');
  };

  it('captures an authorization once', async () => {
    const auth = await pay.cardCreate(h, 'authorization', cardBody());
    approvedOnce(await Promise.all(Array.from({ length: 10 }, () => pay.cardCommand(h, auth.transactionId, 'capture'))));
    expect((await pay.status(h, auth.transactionId)).processedAmount).toBe(54.25);
    expect((await transactionEvents(s, auth.transactionId)).filter((e) => e.type === 'payment.card.captured')).toHaveLength(1);
  });

  // 20 refunds of 5 at once: the row lock lets each see what the others took, so exactly as many are approved as
  // fit in the amount (50 fits 10 of them exactly: Refunded, the others 101 after it; 54.25 fits 10 and leaves
  // 4.25: PartiallyRefunded, the others 103), their sum never exceeds it, and each approved one has its event.
  const refundCases = [
    { kind: 'card sale', amount: 50, refunded: 'payment.card.refunded', status: 7, late: ['101', '103'] },
    { kind: 'card sale', amount: 54.25, refunded: 'payment.card.refunded', status: 11, late: ['103'] },
    { kind: 'ACH debit', amount: 50, refunded: 'payment.ach.refunded', status: 28, late: ['101', '103'] },
    { kind: 'ACH debit', amount: 54.25, refunded: 'payment.ach.refunded', status: 29, late: ['103'] },
  ] as const;
  it.each(refundCases)('refunds a settled $kind of $amount in 20 concurrent parts of 5 without exceeding it', async ({ kind, amount, refunded, status, late }) => {
    const card = kind === 'card sale';
    const id = (card ? await pay.cardCreate(h, 'sale', cardBody('4111111111111111', { amount })) : await pay.achDebit(h, achDebitBody(s, 0, { amount }))).transactionId;
    await pay.simulate(h, id, { outcome: 'settle' });
    const results = await Promise.all(Array.from({ length: 20 }, () => (card ? pay.cardCommand(h, id, 'refund', { amount: 5 }) : pay.achCommand(h, id, 'refund', { amount: 5 }))));
    const approved = results.filter((r) => r.responseCode === '000');
    expect(approved).toHaveLength(10);
    expect(approved.reduce((sum, r) => sum + (r.processedAmount ?? 0), 0)).toBe(50);
    for (const r of results.filter((x) => x.responseCode !== '000')) expect(late).toContain(r.responseCode);
    const final = await pay.status(h, id);
    expect(final).toMatchObject({ statusId: status, refundedAmount: 50, processedAmount: amount });
    const events = (await transactionEvents(s, id)).filter((e) => e.type === refunded);
    expect(events).toHaveLength(10);
    // Each event carries the refunded amount so far: 5, 10, ... 50, each once.
    expect(events.map((e) => e.data.refundedAmount).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 10 }, (_, i) => 5 * (i + 1)));
  });

  it('voids an ACH debit once, while holds race it', async () => {
    const { transactionId } = await pay.achDebit(h, achDebitBody(s));
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => pay.achCommand(h, transactionId, i % 2 === 0 ? 'void' : 'hold')));
    const voids = results.filter((r) => r.typeId === 15 && r.responseCode === '000');
    expect(voids.length).toBeLessThanOrEqual(1);
    const final = await pay.status(h, transactionId);
    const events = (await transactionEvents(s, transactionId)).map((e) => e.type);
    // Every approved command left exactly one event, and the record ends where the last approved one led.
    expect(events.length - 1).toBe(results.filter((r) => r.responseCode === '000').length);
    expect([22, 26]).toContain(final.statusId);
  });

  it('runs a clock advance and commands on the same debits without losing or repeating a change', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, async () => (await pay.achDebit(h, achDebitBody(s))).transactionId));
    const [run] = await Promise.all([pay.advance(h, 3 * 86_400), ...ids.map((id) => pay.achCommand(h, id, 'void'))]);
    let settled = 0;
    for (const id of ids) {
      const record = await pay.status(h, id);
      const events = (await transactionEvents(s, id)).map((e) => e.type);
      if (record.statusId === 22) {
        expect(events).toEqual(['payment.ach.scheduled', 'payment.ach.cancelled']);
      } else {
        settled += 1;
        expect(events).toEqual(['payment.ach.scheduled', 'payment.ach.in_progress', 'payment.ach.cleared']);
      }
    }
    // The advance counts what it settled of these (and of nothing else: the earlier debits were voided or held).
    expect(run.ran.achSettled).toBe(settled);
  });

  it.runIf(engine === 'postgres')('runs what fell due even when a command holds its row at that moment (it waits, it does not skip)', async () => {
    const { transactionId } = await pay.achDebit(h, achDebitBody(s));
    // Another transaction (a command in flight) holds the debit's row while the clock moves past its submission.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let locked: (pid: number) => void = () => undefined;
    const holding = new Promise<number>((resolve) => { locked = resolve; });
    const holder = s.db.transaction(async (tx) => {
      await tx('transactions').where({ id: transactionId }).forUpdate().first();
      locked((await tx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0]?.pid ?? 0);
      await held;
    });
    const holderPid = await holding;
    const advancing = pay.advance(h, 3 * 86_400);
    const advance = { ended: false };
    void advancing.finally(() => { advance.ended = true; }).catch(() => undefined);
    // Released once the advance waits for the row (a backend is blocked by the holder's), or has ended without
    // waiting (then the assertions below say what it skipped).
    const blocked = async (): Promise<boolean> =>
      (await s.db.raw<{ rows: unknown[] }>('select 1 from pg_stat_activity where ? = any(pg_blocking_pids(pid))', [holderPid])).rows.length > 0;
    while (!advance.ended && !(await blocked())) await new Promise((r) => setTimeout(r, 10));
    release();
    await holder;
    const run = await advancing;
    expect(run.ran.achSubmitted).toBeGreaterThanOrEqual(1);
    expect((await pay.status(h, transactionId)).statusId).toBe(25);
    expect((await transactionEvents(s, transactionId)).map((e) => e.type)).toEqual(['payment.ach.scheduled', 'payment.ach.in_progress', 'payment.ach.cleared']);
  });
});
