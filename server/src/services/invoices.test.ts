// Unit tests of the invoice machine as the engine runs it (refusals from the spec's table, PastDue derived), the
// PastDue history entry, and numbers and codes.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../platform/errors.ts';
import type { HistoryRecord, InvoiceRecord, StoredStatus } from '../repositories/invoices.ts';
import { effectiveStatus, historyWithPastDue } from './invoice-view.ts';
import * as engine from './engine.ts';
import { invoiceFamily, permit, type InvoiceOperation } from './invoice-machine.ts';
import { invoiceNumber, newShortCode } from './invoices.ts';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const YESTERDAY = '2026-03-09T12:00:00.000Z';
const TOMORROW = '2026-03-11T12:00:00.000Z';

const invoice = (status: StoredStatus, dueDate: string | null, more: Partial<InvoiceRecord> = {}): InvoiceRecord =>
  ({ id: 'inv-1', status, dueDate, issueDate: status === 1 ? null : '2026-03-01T00:00:00.000Z', paymentDate: null, ...more }) as InvoiceRecord;

const entry = (typeId: number, createdOn: string): HistoryRecord => ({
  id: `h-${typeId}`, invoiceId: 'inv-1', typeId, errorCode: null, errorMessage: null, notificationId: null, notificationTypeId: null,
  notificationTemplateTypeId: null, notificationTarget: null, transactionId: null, paymentMethodTypeId: null, createdOn,
});

/** An invoice in each status a caller sees. */
const BY_STATUS: [number, InvoiceRecord][] = [
  [1, invoice(1, null)],
  [2, invoice(2, TOMORROW)],
  [3, invoice(2, YESTERDAY)],
  [4, invoice(4, TOMORROW)],
  [5, invoice(5, TOMORROW)],
];

describe('the invoice lifecycle', () => {
  it('derives PastDue from the due date and the clock', () => {
    expect(BY_STATUS.map(([, record]) => effectiveStatus(record, NOW))).toEqual([1, 2, 3, 4, 5]);
    // Due at the very instant: not yet past.
    expect(effectiveStatus(invoice(2, NOW.toISOString()), NOW)).toBe(2);
  });

  const expected: Record<InvoiceOperation, [number[], string]> = {
    updateInvoice: [[1], 'invoice_not_draft'],
    deleteInvoice: [[1], 'invoice_not_draft'],
    publishInvoice: [[1], 'invoice_not_draft'],
    cancelInvoice: [[2, 3], 'invoice_not_open'],
    markInvoiceAsPaid: [[2, 3], 'invoice_not_open'],
    submitInvoiceCardPayment: [[2, 3], 'invoice_not_open'],
    submitInvoiceAchPayment: [[2, 3], 'invoice_not_open'],
    sendInvoiceEmailNotification: [[2, 3], 'invoice_not_open'],
    sendInvoiceSmsNotification: [[2, 3], 'invoice_not_open'],
    downloadInvoicePdf: [[2, 3, 4, 5], 'invoice_not_published'],
  };

  it.each(Object.entries(expected) as [InvoiceOperation, [number[], string]][])('%s is permitted in %j, refused with its code elsewhere', (trigger, [allowed, code]) => {
    for (const [status, record] of BY_STATUS) {
      if (allowed.includes(status)) {
        expect(() => { permit(record, trigger, NOW); }).not.toThrow();
      } else {
        let refusal: unknown;
        try {
          permit(record, trigger, NOW);
        } catch (error) {
          refusal = error;
        }
        expect(refusal, `status ${status}`).toBeInstanceOf(ApiError);
        expect((refusal as ApiError).code).toBe(code);
        expect((refusal as ApiError).context.entityId).toBe('inv-1');
      }
    }
  });

  it('leads cancel to Cancelled, the payments to Paid, publish to Due and delete to removal (a PastDue invoice as a Due one)', () => {
    const due = BY_STATUS[1]?.[1];
    const pastDue = BY_STATUS[2]?.[1];
    const draft = BY_STATUS[0]?.[1];
    if (!due || !pastDue || !draft) throw new Error('no invoice');
    const to = (record: InvoiceRecord, trigger: InvoiceOperation) => engine.rowOf(invoiceFamily, record, trigger, NOW)?.to;
    expect([to(due, 'cancelInvoice'), to(pastDue, 'markInvoiceAsPaid'), to(due, 'submitInvoiceCardPayment'), to(pastDue, 'submitInvoiceAchPayment'),
      to(draft, 'publishInvoice'), to(draft, 'deleteInvoice')]).toEqual([5, 4, 4, 4, 2, 'removed']);
  });
});

describe('the PastDue history entry', () => {
  const published = entry(3, '2026-03-01T00:00:00.000Z');

  it('is placed at the due date of an open invoice past it, with a stable id', () => {
    const record = invoice(2, YESTERDAY);
    const history = historyWithPastDue(record, [published, entry(5, '2026-03-10T00:00:00.000Z')], NOW);
    expect(history.map((e) => [e.typeId, e.createdOn])).toEqual([[3, published.createdOn], [10, YESTERDAY], [5, '2026-03-10T00:00:00.000Z']]);
    expect(history[1]?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(historyWithPastDue(record, [published], NOW)[1]?.id).toBe(history[1]?.id);
  });

  it('is absent before the due date, on a draft, and when the invoice was closed in time', () => {
    expect(historyWithPastDue(invoice(2, TOMORROW), [published], NOW)).toHaveLength(1);
    expect(historyWithPastDue(invoice(1, YESTERDAY), [], NOW)).toEqual([]);
    const paidInTime = invoice(4, YESTERDAY, { paymentDate: '2026-03-05T00:00:00.000Z' });
    expect(historyWithPastDue(paidInTime, [published, entry(7, '2026-03-05T00:00:00.000Z')], NOW).map((e) => e.typeId)).toEqual([3, 7]);
    const paidLate = invoice(4, '2026-03-04T00:00:00.000Z', { paymentDate: '2026-03-05T00:00:00.000Z' });
    expect(historyWithPastDue(paidLate, [published, entry(7, '2026-03-05T00:00:00.000Z')], NOW).map((e) => e.typeId)).toEqual([3, 10, 7]);
  });
});

describe('numbers and short codes', () => {
  it('numbers INV- and six digits at least', () => {
    expect([invoiceNumber(1), invoiceNumber(42), invoiceNumber(999_999), invoiceNumber(1_000_000)]).toEqual(['INV-000001', 'INV-000042', 'INV-999999', 'INV-1000000']);
  });

  it('makes short codes of 8 letters and digits', () => {
    const codes = new Set(Array.from({ length: 200 }, newShortCode));
    expect(codes.size).toBe(200);
    for (const code of codes) expect(code).toMatch(/^[A-Za-z0-9]{8}$/);
  });
});
