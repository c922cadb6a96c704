// Unit tests of the engine's typed lookups: a trigger is typed from its family's machine (a wrong one does
// not compile: the @ts-expect-error lines fail `npm run typecheck` if it ever does), a trigger whose rows emit
// an event needs the family's whole scope, and a row is picked by status, type and outcome from the tables.
import { describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import type { Tx } from '../platform/scope.ts';
import { achStateMachine, cardStateMachine, invoiceStateMachine } from '@pgw/client/state-machines';
import type { InvoiceRecord } from '../repositories/invoices.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import * as engine from './engine.ts';
import { invoiceFamily } from './invoice-machine.ts';
import { achFamily, cardFamily } from './transaction-machine.ts';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const ach = (statusId: number, typeId = 11): TransactionRecord => ({ id: 't-1', merchantId: 'm-1', statusId, typeId }) as TransactionRecord;
const invoice = (status: 1 | 2 | 4 | 5, dueDate: string | null): InvoiceRecord => ({ id: 'i-1', merchantId: 'm-1', status, dueDate }) as InvoiceRecord;

describe('the engine', () => {
  it('types each trigger from its own machine: a trigger of no row, or of another machine, does not compile', () => {
    // @ts-expect-error -- 'refundInvoice' is no trigger of the invoice machine.
    expect(engine.permits(invoiceFamily, invoice(2, null), 'refundInvoice', NOW)).toBe(false);
    // @ts-expect-error -- a card command is no trigger of the ACH machine.
    expect(engine.rowFor(achFamily, 21, 11, 'captureCardTransaction')).toBeUndefined();
    // @ts-expect-error -- a mistyped trigger (holdAchTransactions) compiled as a plain string before.
    expect(engine.permits(achFamily, ach(21), 'holdAchTransactions', NOW)).toBe(false);
    expect(engine.permits(achFamily, ach(21), 'holdAchTransaction', NOW)).toBe(true);
  });

  it('asks the family scope of a trigger that emits an event, and only the transaction of one that does not', () => {
    const record = invoice(2, null);
    // Never called: the lines only have to compile (or not).
    const calls = (tx: Tx, pool: Knex) => [
      () => engine.transition({ db: tx }, invoiceFamily, record, 'cancelInvoice', NOW, {}),
      // @ts-expect-error -- the pool is no transaction: the change, its history and its event must commit together.
      () => engine.transition({ db: pool }, invoiceFamily, record, 'cancelInvoice', NOW, {}),
      // @ts-expect-error -- invoice.paid's payload is the invoice as getInvoice shows it: it needs the request's dependencies.
      () => engine.transition({ db: tx }, invoiceFamily, record, 'markInvoiceAsPaid', NOW, {}),
    ];
    expect(calls).toBeTypeOf('function');
  });

  it('picks the row by status, type and outcome', () => {
    expect(engine.rowFor(cardFamily, null, 1, 'authorizeCard', { responseCode: '010' })?.to).toBe(2);
    expect(engine.rowFor(cardFamily, null, 1, 'authorizeCard', { responseCode: '051' })?.event).toBe('payment.card.declined');
    // Refunds apply to debits only (types), and a settled refund row leads to Refunded.
    expect(engine.rowFor(achFamily, 25, 12, 'refundAchTransaction')).toBeUndefined();
    expect(engine.rowFor(achFamily, 25, 11, 'refundAchTransaction')?.to).toBe(28);
    expect(engine.rowFor(cardFamily, 3, 1, 'refundCardTransaction', { to: 5 })?.event).toBe('payment.card.voided');
  });

  it('sees the effective status of an invoice: a Due one past its due date is PastDue', () => {
    const pastDue = invoice(2, '2026-03-09T12:00:00.000Z');
    expect(engine.rowOf(invoiceFamily, pastDue, 'sendInvoiceEmailNotification', NOW)?.from).toBe(3);
    expect(engine.rowOf(invoiceFamily, invoice(2, '2026-03-11T12:00:00.000Z'), 'sendInvoiceEmailNotification', NOW)?.from).toBe(2);
    expect(engine.permits(invoiceFamily, invoice(4, null), 'cancelInvoice', NOW)).toBe(false);
  });

  it('runs the generated tables themselves', () => {
    expect(achFamily.machine).toBe(achStateMachine);
    expect(cardFamily.machine).toBe(cardStateMachine);
    expect(invoiceFamily.machine).toBe(invoiceStateMachine);
  });
});
