// Every transition of the ACH and card state machines, driven by the tables the generator emits from the
// spec (x-state-machine): each permitted command reaches its status, answers its code and writes its
// event; each command the table does not permit answers 101 and changes nothing (read back, events
// counted). Network triggers are forced through the sandbox controls; one a status does not permit
// answers 400 simulation_not_allowed and changes nothing. A row picked by the command's amount (a refund's
// `partial` or `remainder`) is driven with that amount, a remainder both as the amount and as none.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AchTransactionStatus, CardTransactionStatus, TransactionType } from '@pgw/client/enums';
import { achStateMachine, cardStateMachine, type StateTransition } from '@pgw/client/state-machines';
import { engines, startServer, type ErrorBody, type TestServer } from '../harness.ts';
import { achCreditBody, achDebitBody, cardBody, paymentCalls, transactionEvents, type Details, type Headers } from './payment-helpers.ts';

const ACH_STATUS = AchTransactionStatus;
// Every card status but Pending, which no row of the table reaches.
const { Authorized, PartiallyAuthorized, Captured, Settled, Voided, Expired, Refunded, Declined, Failed, PartiallyRefunded } = CardTransactionStatus;
const CARD_STATUS = { Authorized, PartiallyAuthorized, Captured, Settled, Voided, Expired, Refunded, Declined, Failed, PartiallyRefunded } as const;
const TYPE = TransactionType;

/** The command of each operation trigger: the path segment after the id. */
const ACH_COMMANDS: Record<string, 'hold' | 'unhold' | 'void' | 'refund'> = {
  holdAchTransaction: 'hold', unholdAchTransaction: 'unhold', voidAchTransaction: 'void', refundAchTransaction: 'refund',
};
const CARD_COMMANDS: Record<string, 'capture' | 'void' | 'refund'> = { captureCardTransaction: 'capture', voidCardTransaction: 'void', refundCardTransaction: 'refund' };
/** The simulate outcome that forces each network trigger (expiry has none: the clock makes it happen). */
const SIMULATED: Record<string, Record<string, unknown>> = {
  'network.submit': { outcome: 'submit' },
  'network.clear': { outcome: 'settle' },
  'network.return.chargeback': { outcome: 'return', returnCode: 'R10' },
  'network.return.failed': { outcome: 'return', returnCode: 'R01' },
  'network.fail': { outcome: 'fail' },
  'network.settle': { outcome: 'settle' },
};

/** A part of what remains refundable (every record the tests refund has more than this left). */
const PART = 10;

/**
 * The bodies that drive a row (undefined: no body): a `partial` row takes a part of what remains, a
 * `remainder` row all of it, given as that amount and as no amount; any other row its command's default.
 */
function bodiesOf(row: StateTransition, remaining: number): [string, Record<string, unknown> | undefined][] {
  if (row.amount === 'partial') return [[`a part (${String(PART)})`, { amount: PART }]];
  if (row.amount === 'remainder') return [['no amount', undefined], [`the remainder (${String(remaining)})`, { amount: remaining }]];
  return [['its default', undefined]];
}

/** What remains refundable of a record (cents arithmetic: the amounts are exact to the cent). */
const remainingOf = (d: Details): number => Math.round(d.processedAmount * 100 - d.refundedAmount * 100) / 100;

type AchStatusName = keyof typeof ACH_STATUS;
type CardStatusName = keyof typeof CARD_STATUS;

describe.each(engines())('payment state machines (%s)', (engine) => {
  let s: TestServer;
  let h: Headers;
  const pay = paymentCalls(() => s);
  beforeAll(async () => {
    s = await startServer(engine);
    h = await s.as(0);
  });
  afterAll(async () => { await s.close(); });

  /** An ACH transaction of the type brought to the status by permitted commands and forced outcomes. */
  async function achIn(status: AchStatusName, typeId: number): Promise<string> {
    const created = typeId === TYPE.AchDebit ? await pay.achDebit(h, achDebitBody(s)) : await pay.achCredit(h, achCreditBody(s));
    const id = created.transactionId;
    const steps: Record<AchStatusName, () => Promise<unknown>> = {
      Scheduled: () => Promise.resolve(),
      Held: () => pay.achCommand(h, id, 'hold'),
      Cancelled: () => pay.achCommand(h, id, 'void'),
      InProgress: () => pay.simulate(h, id, { outcome: 'submit' }),
      Settled: () => pay.simulate(h, id, { outcome: 'settle' }),
      ChargedBack: () => pay.simulate(h, id, { outcome: 'return', returnCode: 'R10' }),
      Failed: () => pay.simulate(h, id, { outcome: 'fail' }),
      // A credit is never refunded: the only Refunded and PartiallyRefunded records are debits.
      Refunded: async () => { await pay.simulate(h, id, { outcome: 'settle' }); await pay.achCommand(h, id, 'refund'); },
      PartiallyRefunded: async () => { await pay.simulate(h, id, { outcome: 'settle' }); await pay.achCommand(h, id, 'refund', { amount: PART }); },
    };
    await steps[status]();
    expect((await pay.status(h, id)).statusId).toBe(ACH_STATUS[status]);
    return id;
  }

  /** A card transaction of the type in the status (Expired: moved there by the merchant's clock). */
  async function cardIn(status: CardStatusName, typeId: number): Promise<string | undefined> {
    const kind = typeId === TYPE.Authorization ? 'authorization' : typeId === TYPE.Sale ? 'sale' : 'refund';
    const pan = status === 'Declined' ? '4000000000000002' : status === 'Failed' ? '4000000000000119' : status === 'PartiallyAuthorized' ? '4000000000000093' : '4111111111111111';
    // A refund without reference takes no billing address (its schema names none, and an unknown field is refused).
    const created = await pay.cardCreate(h, kind, cardBody(pan, kind === 'refund' ? { billingAddress: undefined } : {}));
    const id = created.transactionId;
    const atCreation: Record<number, CardStatusName> = { [TYPE.Authorization]: 'Authorized', [TYPE.Sale]: 'Captured', [TYPE.RefundWORef]: 'Captured' };
    const reach: Partial<Record<CardStatusName, () => Promise<unknown>>> = {
      Captured: () => (typeId === TYPE.Authorization ? pay.cardCommand(h, id, 'capture') : Promise.resolve()),
      Settled: async () => { if (typeId === TYPE.Authorization) await pay.cardCommand(h, id, 'capture'); await pay.simulate(h, id, { outcome: 'settle' }); },
      Voided: () => pay.cardCommand(h, id, 'void'),
      Refunded: async () => { if (typeId === TYPE.Authorization) await pay.cardCommand(h, id, 'capture'); await pay.simulate(h, id, { outcome: 'settle' }); await pay.cardCommand(h, id, 'refund'); },
      PartiallyRefunded: async () => {
        if (typeId === TYPE.Authorization) await pay.cardCommand(h, id, 'capture');
        await pay.simulate(h, id, { outcome: 'settle' });
        await pay.cardCommand(h, id, 'refund', { amount: PART });
      },
      Expired: () => pay.advance(h, 8 * 86_400),
    };
    const first = (await pay.status(h, id)).statusId;
    if (first !== CARD_STATUS[status] && atCreation[typeId] !== status) await reach[status]?.();
    const now = (await pay.status(h, id)).statusId;
    return now === CARD_STATUS[status] ? id : undefined;
  }

  async function snapshot(id: string): Promise<{ record: Details; events: number }> {
    return { record: await pay.status(h, id), events: (await transactionEvents(s, id)).length };
  }

  describe('ACH', () => {
    const typeIds = [TYPE.AchDebit, TYPE.AchRefund];
    const statuses = Object.keys(ACH_STATUS) as AchStatusName[];
    const reachable = (status: AchStatusName, typeId: number): boolean => !((status === 'Refunded' || status === 'PartiallyRefunded') && typeId === TYPE.AchRefund);

    const permitted: readonly StateTransition[] = achStateMachine.transitions.filter((row) => row.from !== null && row.trigger in ACH_COMMANDS);
    it.each(permitted.flatMap((row) => (row.types ?? typeIds).flatMap((typeId) => bodiesOf(row, 0).map(([how], variant) =>
      [`${String(row.from)} -${row.trigger}-> ${String(row.to)} (type ${String(typeId)}, ${how.replace(/ \(.*/, '')})`, row, typeId, variant] as const))))('permits %s', async (_name, row, typeId, variant) => {
      const from = statuses.find((n) => ACH_STATUS[n] === row.from) ?? 'Scheduled';
      const id = await achIn(from, typeId);
      const before = await pay.status(h, id);
      const events0 = (await transactionEvents(s, id)).length;
      const body = bodiesOf(row, remainingOf(before))[variant]?.[1];
      const result = await pay.achCommand(h, id, ACH_COMMANDS[row.trigger] ?? 'hold', body);
      expect(result).toMatchObject({ transactionId: id, statusId: row.to, responseCode: '000' });
      const after = await pay.status(h, id);
      expect(after.statusId).toBe(row.to);
      // A refund adds what it took to refundedAmount: a part, or all that remained.
      if (row.amount !== undefined) expect(after.refundedAmount).toBe(row.amount === 'partial' ? before.refundedAmount + PART : before.processedAmount);
      const events = await transactionEvents(s, id);
      expect(events.length).toBe(events0 + 1);
      expect(events.at(-1)).toMatchObject({ type: row.event, data: { transactionId: id, statusId: row.to, refundedAmount: after.refundedAmount } });
    });

    const forbidden = statuses.flatMap((status) => typeIds.flatMap((typeId) => Object.keys(ACH_COMMANDS)
      .filter((trigger) => reachable(status, typeId) && !achStateMachine.transitions.some((r) => r.from === ACH_STATUS[status] && r.trigger === trigger && (r.types === null || (r.types as readonly number[]).includes(typeId))))
      .map((trigger) => [`${trigger} from ${status} (type ${String(typeId)})`, status, typeId, trigger] as const)));
    it.each(forbidden)('refuses %s with 101 and changes nothing', async (_name, status, typeId, trigger) => {
      const id = await achIn(status, typeId);
      const before = await snapshot(id);
      const result = await pay.achCommand(h, id, ACH_COMMANDS[trigger] ?? 'hold');
      expect(result).toMatchObject({ transactionId: id, responseCode: '101', statusId: ACH_STATUS[status] });
      expect(await snapshot(id)).toEqual(before);
    });

    const network = achStateMachine.transitions.filter((row) => row.from !== null && row.trigger in SIMULATED);
    it.each(network.map((row) => [`${String(row.from)} -${row.trigger}-> ${String(row.to)}`, row] as const))('forces %s', async (_name, row) => {
      const from = statuses.find((n) => ACH_STATUS[n] === row.from) ?? 'Scheduled';
      const id = await achIn(from, TYPE.AchDebit);
      const after = await pay.simulate(h, id, SIMULATED[row.trigger] ?? {});
      expect(after.statusId).toBe(row.to);
      expect((await transactionEvents(s, id)).map((e) => e.type)).toContain(row.event);
    });

    // Outcomes apply to Scheduled and InProgress entries only, and submit to Scheduled ones only.
    const closed = statuses.filter((status) => !['Scheduled', 'InProgress'].includes(status));
    const refusals = [
      ...closed.flatMap((status) => Object.values(SIMULATED).map((body) => [`${String(body.outcome)} in ${status}`, status, body] as const)),
      ['submit in InProgress', 'InProgress' as AchStatusName, { outcome: 'submit' }] as const,
    ];
    it.each(refusals)(
      'refuses to simulate %s: 400 simulation_not_allowed, nothing changes', async (_name, status, body) => {
        const id = await achIn(status, TYPE.AchDebit);
        const before = await snapshot(id);
        const res = await request(s.app).post(`/sandbox/v1/transactions/${id}/simulate`).set(h).send(body);
        expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([400, 'simulation_not_allowed']);
        expect(await snapshot(id)).toEqual(before);
      });
  });

  describe('card', () => {
    const typeIds = [TYPE.Authorization, TYPE.Sale, TYPE.RefundWORef];
    const statuses = Object.keys(CARD_STATUS) as CardStatusName[];

    // Every (status, type) a card transaction can be in, with every command the table does not give it.
    const kinds: [CardStatusName, number][] = [
      ['Authorized', TYPE.Authorization], ['PartiallyAuthorized', TYPE.Authorization], ['Captured', TYPE.Authorization], ['Captured', TYPE.Sale],
      ['Captured', TYPE.RefundWORef], ['Settled', TYPE.Sale], ['Settled', TYPE.RefundWORef], ['Settled', TYPE.Authorization], ['Voided', TYPE.Sale],
      ['Voided', TYPE.Authorization], ['Voided', TYPE.RefundWORef], ['Refunded', TYPE.Sale], ['Refunded', TYPE.Authorization],
      ['PartiallyRefunded', TYPE.Sale], ['PartiallyRefunded', TYPE.Authorization], ['Declined', TYPE.Authorization], ['Declined', TYPE.Sale],
      ['Declined', TYPE.RefundWORef], ['Failed', TYPE.Authorization], ['Failed', TYPE.Sale], ['Failed', TYPE.RefundWORef], ['Expired', TYPE.Authorization],
    ];
    const permitted: readonly StateTransition[] = cardStateMachine.transitions.filter((row) => row.from !== null && row.trigger in CARD_COMMANDS);
    it.each(permitted.flatMap((row) => (row.types ?? typeIds).flatMap((typeId) => bodiesOf(row, 0).map(([how], variant) =>
      [`${String(row.from)} -${row.trigger}-> ${String(row.to)} (type ${String(typeId)}, ${how.replace(/ \(.*/, '')})`, row, typeId, variant] as const))))(
      'permits %s', async (_name, row, typeId, variant) => {
        const from = statuses.find((n) => CARD_STATUS[n] === row.from) ?? 'Authorized';
        const id = await cardIn(from, typeId);
        // A row for every type: types that never reach its status have nothing to test there.
        if (!kinds.some(([status, type]) => status === from && type === typeId)) return;
        expect(id, `could not bring a type ${String(typeId)} transaction to ${from}`).toBeDefined();
        if (id === undefined) return;
        const before = await pay.status(h, id);
        const events0 = (await transactionEvents(s, id)).length;
        const body = bodiesOf(row, remainingOf(before))[variant]?.[1];
        const result = await pay.cardCommand(h, id, CARD_COMMANDS[row.trigger] ?? 'void', body);
        expect(result).toMatchObject({ transactionId: id, statusId: row.to, responseCode: '000' });
        const after = await pay.status(h, id);
        expect(after.statusId).toBe(row.to);
        // A refund of a settled record adds what it took to refundedAmount (a void before settlement refunds nothing).
        if (row.amount !== undefined && row.to !== Voided) expect(after.refundedAmount).toBe(row.amount === 'partial' ? before.refundedAmount + PART : before.processedAmount);
        const events = await transactionEvents(s, id);
        expect(events.length).toBe(events0 + 1);
        expect(events.at(-1)).toMatchObject({ type: row.event, data: { transactionId: id, statusId: row.to, refundedAmount: after.refundedAmount } });
      });

    const forbidden = kinds.flatMap(([status, typeId]) => Object.keys(CARD_COMMANDS)
      .filter((trigger) => !cardStateMachine.transitions.some((r) => r.from === CARD_STATUS[status] && r.trigger === trigger && (r.types === null || (r.types as readonly number[]).includes(typeId))))
      .map((trigger) => [`${trigger} from ${status} (type ${String(typeId)})`, status, typeId, trigger] as const));
    it.each(forbidden)('refuses %s with 101 and changes nothing', async (_name, status, typeId, trigger) => {
      const id = await cardIn(status, typeId);
      expect(id, `could not bring a type ${String(typeId)} transaction to ${status}`).toBeDefined();
      const before = await snapshot(id ?? '');
      const result = await pay.cardCommand(h, id ?? '', CARD_COMMANDS[trigger] ?? 'void');
      expect(result).toMatchObject({ transactionId: id, responseCode: '101', statusId: CARD_STATUS[status] });
      expect(await snapshot(id ?? '')).toEqual(before);
    });

    // Only settle applies to a card transaction, and only when it is Captured.
    const cardRefusals = [
      ...kinds.filter(([status]) => status !== 'Captured').map(([status, typeId]) => [`settle in ${status} (type ${String(typeId)})`, status, typeId, { outcome: 'settle' }] as const),
      ...[{ outcome: 'submit' }, { outcome: 'fail' }, { outcome: 'return', returnCode: 'R01' }].map((body) => [`${body.outcome} of a captured sale`, 'Captured', TYPE.Sale, body] as const),
    ];
    it.each(cardRefusals)(
      'refuses to simulate %s: 400 simulation_not_allowed, nothing changes', async (_name, status, typeId, body) => {
        const id = (await cardIn(status, typeId)) ?? '';
        const before = await snapshot(id);
        const res = await request(s.app).post(`/sandbox/v1/transactions/${id}/simulate`).set(h).send(body);
        expect([res.status, (res.body as ErrorBody).errorCode]).toEqual([400, 'simulation_not_allowed']);
        expect(await snapshot(id)).toEqual(before);
      });
  });
});
