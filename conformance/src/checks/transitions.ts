// State machines: every permitted transition reaches its state; every forbidden one answers 400 with the
// standard body and an errorCode, and changes nothing (read back). Invoices now; payments and webhooks when
// their operations exist.
import { OperationId } from '@pgw/client/operations';
import { bodyOf, createdId, expectStatus, expectThat, type Check, type CheckContext } from '../check.ts';

/** InvoiceStatus of the spec (designed numbering): 1 Draft, 2 Due, 3 PastDue, 4 Paid, 5 Cancelled. */
const DRAFT = 1;
const DUE = 2;
const PAID = 4;
const CANCELLED = 5;

function invoiceBody(ctx: CheckContext): Record<string, unknown> {
  return {
    dueDate: ctx.daysAhead(30),
    additionalNotes: ctx.unique('note'),
    customer: { firstName: 'Conformance', lastName: ctx.unique('inv'), email: `${ctx.unique('i').toLowerCase()}@example.com` },
    lineItems: [{ lineItemId: null, productName: 'Conformance service', unitTypeId: 1, unitPrice: 40, quantity: 2 }],
  };
}

async function statusOf(ctx: CheckContext, id: string): Promise<number> {
  const res = await ctx.call(OperationId.getInvoice, { path: { invoiceId: id } });
  expectStatus(res, 200, OperationId.getInvoice);
  return Number(bodyOf(res).status);
}

/** An invoice in the given state: a draft, published (Due), cancelled or paid. */
async function invoiceIn(ctx: CheckContext, state: 'draft' | 'due' | 'cancelled' | 'paid'): Promise<string> {
  const id = createdId(await ctx.call(OperationId.createInvoice, { body: invoiceBody(ctx) }), 'invoice');
  if (state === 'draft') return id;
  expectStatus(await ctx.call(OperationId.publishInvoice, { body: { ...invoiceBody(ctx), id } }), 200, 'publishInvoice of a draft');
  if (state === 'cancelled') expectStatus(await ctx.call(OperationId.cancelInvoice, { path: { invoiceId: id } }), 200, 'cancelInvoice of a Due invoice');
  if (state === 'paid') expectStatus(await ctx.call(OperationId.markInvoiceAsPaid, { path: { invoiceId: id }, body: { paymentMethodTypeId: null } }), 200, 'markInvoiceAsPaid of a Due invoice');
  return id;
}

interface Forbidden {
  name: string;
  /** The interface states this rule (else the project designed it). */
  seed: boolean;
  from: 'draft' | 'due' | 'cancelled' | 'paid';
  send: (ctx: CheckContext, id: string) => ReturnType<CheckContext['call']>;
}

const forbidden: Forbidden[] = [
  { name: 'cancel a draft', seed: true, from: 'draft', send: (ctx, id) => ctx.call(OperationId.cancelInvoice, { path: { invoiceId: id } }) },
  { name: 'mark a draft as paid', seed: true, from: 'draft', send: (ctx, id) => ctx.call(OperationId.markInvoiceAsPaid, { path: { invoiceId: id }, body: {} }) },
  { name: 'delete a published invoice', seed: true, from: 'due', send: (ctx, id) => ctx.call(OperationId.deleteInvoice, { path: { invoiceId: id } }) },
  { name: 'publish a published invoice', seed: false, from: 'due', send: (ctx, id) => ctx.call(OperationId.publishInvoice, { body: { ...invoiceBody(ctx), id } }) },
  { name: 'cancel a cancelled invoice', seed: true, from: 'cancelled', send: (ctx, id) => ctx.call(OperationId.cancelInvoice, { path: { invoiceId: id } }) },
  { name: 'mark a cancelled invoice as paid', seed: true, from: 'cancelled', send: (ctx, id) => ctx.call(OperationId.markInvoiceAsPaid, { path: { invoiceId: id }, body: {} }) },
  { name: 'cancel a paid invoice', seed: true, from: 'paid', send: (ctx, id) => ctx.call(OperationId.cancelInvoice, { path: { invoiceId: id } }) },
  { name: 'mark a paid invoice as paid again', seed: true, from: 'paid', send: (ctx, id) => ctx.call(OperationId.markInvoiceAsPaid, { path: { invoiceId: id }, body: {} }) },
  { name: 'delete a paid invoice', seed: false, from: 'paid', send: (ctx, id) => ctx.call(OperationId.deleteInvoice, { path: { invoiceId: id } }) },
];

const EXPECTED_STATUS = { draft: DRAFT, due: DUE, cancelled: CANCELLED, paid: PAID } as const;

export const transitionChecks: Check[] = [
  {
    id: 'transitions/invoice_permitted', group: 'transitions', tags: ['Invoices'], designed: true,
    title: 'An invoice goes Draft -> Due (publish) -> Cancelled, and Due -> Paid (mark as paid); a draft can be deleted',
    async run(ctx) {
      for (const state of ['draft', 'due', 'cancelled', 'paid'] as const) {
        const id = await invoiceIn(ctx, state);
        const status = await statusOf(ctx, id);
        expectThat(status === EXPECTED_STATUS[state], `the invoice is ${state} (status ${String(EXPECTED_STATUS[state])}, got ${String(status)})`);
      }
      const draft = await invoiceIn(ctx, 'draft');
      expectStatus(await ctx.call(OperationId.deleteInvoice, { path: { invoiceId: draft } }), 200, 'deleteInvoice of a draft');
      expectStatus(await ctx.call(OperationId.getInvoice, { path: { invoiceId: draft } }), 404, 'getInvoice after delete');
    },
  },
  ...forbidden.map((f): Check => ({
    id: `transitions/invoice_forbidden:${f.name.replaceAll(' ', '_')}`, group: 'transitions', tags: ['Invoices'], designed: !f.seed,
    title: `Trying to ${f.name} answers 400 with an errorCode and changes nothing`,
    async run(ctx) {
      const id = await invoiceIn(ctx, f.from);
      const before = await ctx.call(OperationId.getInvoice, { path: { invoiceId: id } });
      const res = await f.send(ctx, id);
      expectStatus(res, 400, `trying to ${f.name}`);
      const body = bodyOf(res);
      expectThat(body.statusCode === 400 && typeof body.errorCode === 'string' && body.errorCode !== '', 'the standard body with an errorCode', res);
      const after = await ctx.call(OperationId.getInvoice, { path: { invoiceId: id } });
      expectStatus(after, 200, 'the invoice still exists');
      // The history may record the refused attempt; the invoice itself must not change.
      const withoutHistory = (b: Record<string, unknown>): string => JSON.stringify({ ...b, history: null });
      expectThat(withoutHistory(bodyOf(after)) === withoutHistory(bodyOf(before)), `the invoice is unchanged (status ${String(bodyOf(after).status)})`, after);
    },
  })),
];
