// `pgw trigger` recipes: each event type the server emits, made to happen for real through the public API
// and the sandbox controls (simulate, a terminal's paper report), printing the ids of what it created. The
// types no operation can produce are listed with the reason.
import { randomUUID } from 'node:crypto';
import { AccountHolderType, AccountType, PaymentProcessorType, SecCode } from '../../generated/enums.ts';
import { sandboxCardFor } from '../../generated/magic-values.ts';
import { webhookEvents, type WebhookEventName } from '../../generated/webhooks.ts';
import { done, ok, type Session } from './api.ts';

type Say = (text: string) => void;
interface Recipe { does: string; run: (r: Runner) => Promise<void> }

/** The sandbox's magic card answering a response code (the contract's table). */
function magicCard(responseCode: Parameters<typeof sandboxCardFor>[0]): string {
  const pan = sandboxCardFor(responseCode);
  if (pan === undefined) throw new Error(`the contract lists no sandbox card answering ${responseCode}`);
  return pan;
}
const CARD = { pan: magicCard('000'), expirationMonth: 12, expirationYear: 2030, securityCode: '123', cardholderName: 'Jane Doe' };
const DECLINING = magicCard('005');
const FAILING = magicCard('096');

/** The calls the recipes share, each printing what it made. */
class Runner {
  private achProcessor: string | undefined;
  constructor(readonly s: Session, readonly say: Say) {}

  private async ach(): Promise<string> {
    if (this.achProcessor) return this.achProcessor;
    const conf = await ok(this.s.config, 'reading the payment configuration', () => this.s.api.GET('/pay-api/v1/configurations/payments'));
    const found = conf.availablePaymentProcessors.find((p) => p.typeId === PaymentProcessorType.Eft);
    if (!found) throw new Error('the merchant has no ACH (Eft) processor in its payment configuration');
    this.achProcessor = found.id;
    return found.id;
  }

  async cardSale(pan = CARD.pan): Promise<string> {
    const r = await ok(this.s.config, 'a card sale', () => this.s.api.POST('/pay-api/v1/transactions/card/sale', { body: { amount: 25.5, card: { ...CARD, pan } } }));
    this.say(`card sale ${r.transactionId}: ${r.status ?? ''} (${r.responseCode ?? ''})`);
    return r.transactionId;
  }

  async cardAuthorization(): Promise<string> {
    const r = await ok(this.s.config, 'a card authorization', () => this.s.api.POST('/pay-api/v1/transactions/card/authorization', { body: { amount: 25.5, card: CARD } }));
    this.say(`card authorization ${r.transactionId}: ${r.status ?? ''}`);
    return r.transactionId;
  }

  async cardCommand(id: string, command: 'void' | 'capture'): Promise<void> {
    const r = await ok(this.s.config, `card ${command}`, () => this.s.api.POST(`/pay-api/v1/transactions/card/{transactionId}/${command}`, { params: { path: { transactionId: id } } }));
    this.say(`card ${command} of ${id}: ${r.status ?? ''}`);
  }

  async cardRefundWithoutReference(): Promise<void> {
    const r = await ok(this.s.config, 'a card refund', () => this.s.api.POST('/pay-api/v1/transactions/card/refund', { body: { amount: 5, card: CARD } }));
    this.say(`card refund ${r.transactionId}: ${r.status ?? ''}`);
  }

  async achDebit(): Promise<string> {
    const paymentProcessorId = await this.ach();
    const r = await ok(this.s.config, 'an ACH debit', () => this.s.api.POST('/pay-api/v1/transactions/ach/payment', { body: {
      amount: 42.5, paymentProcessorId, secCode: SecCode.PPD, requesterIPaddress: '203.0.113.24', routingNumber: '021000021', accountNumber: '000123456789',
      accountType: AccountType.Checking, accountHolderType: AccountHolderType.Personal, billingAddress: { line1: '100 Congress Ave', city: 'Austin', stateId: 44, countryId: 1, postalCode: '78701' },
      contactInfo: { firstName: 'Jane', lastName: 'Doe' },
    } }));
    this.say(`ACH debit ${r.transactionId}: ${r.status ?? ''}`);
    return r.transactionId;
  }

  async achCommand(id: string, command: 'hold' | 'unhold' | 'void' | 'refund'): Promise<void> {
    const r = command === 'refund'
      ? await ok(this.s.config, 'ACH refund', () => this.s.api.POST('/pay-api/v1/transactions/ach/{transactionId}/refund', { params: { path: { transactionId: id } }, body: { amount: 10 } }))
      : await ok(this.s.config, `ACH ${command}`, () => this.s.api.POST(`/pay-api/v1/transactions/ach/{transactionId}/${command}`, { params: { path: { transactionId: id } } }));
    this.say(`ACH ${command} of ${id}: ${r.status ?? ''}${command === 'refund' ? ` (refund ${r.transactionId})` : ''}`);
  }

  async simulate(id: string, outcome: 'submit' | 'settle' | 'return' | 'fail', returnCode?: 'R10'): Promise<void> {
    const r = await ok(this.s.config, `simulate ${outcome}`, () => this.s.api.POST('/sandbox/v1/transactions/{transactionId}/simulate', {
      params: { path: { transactionId: id } }, body: returnCode === undefined ? { outcome } : { outcome, returnCode },
    }));
    this.say(`simulated ${outcome}${returnCode ? ` ${returnCode}` : ''} on ${id}: ${r.status ?? ''}`);
  }

  async invoice(publish: boolean): Promise<string> {
    const body = {
      id: null, dueDate: new Date(Date.now() + 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      customer: { firstName: 'Jane', lastName: 'Doe', email: 'jane.doe@example.com' },
      lineItems: [{ lineItemId: null, productName: 'pgw trigger', unitTypeId: 1, unitPrice: 20, quantity: 1 }],
    };
    const r = publish
      ? await ok(this.s.config, 'publishing an invoice', () => this.s.api.POST('/pay-int-api/invoices/publish', { body }))
      : await ok(this.s.config, 'creating an invoice', () => this.s.api.POST('/pay-int-api/invoices', { body }));
    this.say(`invoice ${r.id}: ${publish ? 'published (Due)' : 'Draft'}`);
    return r.id;
  }

  async markPaid(id: string): Promise<void> {
    await done(this.s.config, 'marking the invoice paid', () => this.s.api.PUT('/pay-int-api/invoices/{invoiceId}/mark-as-paid', { params: { path: { invoiceId: id } } }));
    this.say(`invoice ${id}: marked as paid`);
  }

  /** A terminal with a serial number of its own (a repeated trigger registers another one). */
  async terminal(): Promise<string> {
    const serialNumber = `PGW-${randomUUID().slice(0, 8).toUpperCase()}`;
    const r = await ok(this.s.config, 'registering a terminal', () => this.s.api.POST('/pay-api/v1/terminals', { body: { serialNumber, model: 'pgw trigger', name: 'pgw trigger' } }));
    this.say(`terminal ${r.terminalId}: registered (serial ${r.serialNumber}, paper ${r.paperStatus})`);
    return r.terminalId;
  }

  async paperReport(terminalId: string, paperStatus: 'Ok' | 'Low' | 'Empty'): Promise<void> {
    const r = await ok(this.s.config, `a ${paperStatus} paper report`, () => this.s.api.POST('/sandbox/v1/terminals/{terminalId}/paper-status', {
      params: { path: { terminalId } }, body: { paperStatus },
    }));
    this.say(`terminal ${terminalId}: reported paper ${r.paperStatus} (sandbox)`);
  }

  /** A key made and deleted at once: a spare credential is not left behind (its secret is never shown). */
  async apiKeyCreatedAndDeleted(): Promise<void> {
    const key = await ok(this.s.config, 'creating an API key', () => this.s.api.POST('/pay-api/v1/merchants/tokens', { body: { name: `pgw trigger ${new Date().toISOString()}` } }));
    this.say(`API key ${key.clientId}: created (its secret is not shown)`);
    await done(this.s.config, 'deleting the API key', () => this.s.api.DELETE('/pay-api/v1/merchants/tokens/{clientId}', { params: { path: { clientId: key.clientId } } }));
    this.say(`API key ${key.clientId}: deleted`);
  }
}

export const recipes: Partial<Record<WebhookEventName, Recipe>> = {
  'payment.card.authorized': { does: 'a card authorization', run: async (r) => { await r.cardAuthorization(); } },
  'payment.card.captured': { does: 'a card sale', run: async (r) => { await r.cardSale(); } },
  'payment.card.declined': { does: `a card sale with the declining card ${DECLINING}`, run: async (r) => { await r.cardSale(DECLINING); } },
  'payment.card.failed': { does: `a card sale with the failing card ${FAILING}`, run: async (r) => { await r.cardSale(FAILING); } },
  'payment.card.voided': { does: 'a card sale, then its void', run: async (r) => { await r.cardCommand(await r.cardSale(), 'void'); } },
  'payment.card.refunded': { does: 'a card refund without reference', run: async (r) => { await r.cardRefundWithoutReference(); } },
  'settlement.batch.completed': { does: 'a card sale, settled by the sandbox (simulate settle)', run: async (r) => { await r.simulate(await r.cardSale(), 'settle'); } },
  'payment.ach.scheduled': { does: 'an ACH debit', run: async (r) => { await r.achDebit(); } },
  'payment.ach.in_progress': { does: 'an ACH debit, submitted by the sandbox (simulate submit)', run: async (r) => { await r.simulate(await r.achDebit(), 'submit'); } },
  'payment.ach.held': { does: 'an ACH debit, then its hold', run: async (r) => { await r.achCommand(await r.achDebit(), 'hold'); } },
  'payment.ach.released': { does: 'an ACH debit, held, then released', run: async (r) => { const id = await r.achDebit(); await r.achCommand(id, 'hold'); await r.achCommand(id, 'unhold'); } },
  'payment.ach.cancelled': { does: 'an ACH debit, then its void', run: async (r) => { await r.achCommand(await r.achDebit(), 'void'); } },
  'payment.ach.cleared': { does: 'an ACH debit, settled by the sandbox (simulate settle)', run: async (r) => { await r.simulate(await r.achDebit(), 'settle'); } },
  'payment.ach.charged_back': { does: 'an ACH debit, returned R10 by the sandbox (simulate return)', run: async (r) => { await r.simulate(await r.achDebit(), 'return', 'R10'); } },
  'payment.ach.failed': { does: 'an ACH debit, failed by the sandbox (simulate fail)', run: async (r) => { await r.simulate(await r.achDebit(), 'fail'); } },
  'payment.ach.refunded': { does: 'an ACH debit, settled, then refunded in part', run: async (r) => { const id = await r.achDebit(); await r.simulate(id, 'settle'); await r.achCommand(id, 'refund'); } },
  'invoice.created': { does: 'a draft invoice', run: async (r) => { await r.invoice(false); } },
  'invoice.paid': { does: 'a published invoice, marked as paid', run: async (r) => { await r.markPaid(await r.invoice(true)); } },
  'api_key.created': { does: 'an API key, deleted again at once (api_key.deleted follows)', run: async (r) => { await r.apiKeyCreatedAndDeleted(); } },
  'api_key.deleted': { does: 'an API key made for it, then deleted', run: async (r) => { await r.apiKeyCreatedAndDeleted(); } },
  'terminal.added': { does: 'a terminal registered', run: async (r) => { await r.terminal(); } },
  'terminal.out_of_paper': { does: 'a terminal registered, then its paper reported Empty by the sandbox', run: async (r) => { await r.paperReport(await r.terminal(), 'Empty'); } },
};

/** Why the other event types of the spec cannot be triggered. */
export const notTriggerable: Partial<Record<WebhookEventName, string>> = {
  'subscription.created': 'the API has no subscription operations; the server never emits it',
  'subscription.paid': 'the API has no subscription operations; the server never emits it',
  'subscription.payment_failed': 'the API has no subscription operations; the server never emits it',
  'subscription.delinquent': 'the API has no subscription operations; the server never emits it',
  'quick_payment.created': 'the API has no quick payment operations; the server never emits it',
  'quick_payment.paid': 'the API has no quick payment operations; the server never emits it',
  'merchant.created': 'a new merchant emits it, once: pgw sandbox create makes one (with a partner key), and its listener starts after it',
};

export const eventTypes = (): readonly WebhookEventName[] => webhookEvents.map((e) => e.name);

export function listing(): string {
  const lines = ['Event types pgw trigger makes happen (through the API and the sandbox controls):'];
  for (const type of eventTypes()) {
    const recipe = recipes[type];
    if (recipe) lines.push(`  ${type.padEnd(28)} ${recipe.does}`);
  }
  lines.push('', 'Event types it cannot trigger, and why:');
  for (const type of eventTypes()) {
    if (!recipes[type]) lines.push(`  ${type.padEnd(28)} ${notTriggerable[type] ?? 'no recipe: no operation is known to produce it'}`);
  }
  return lines.join('\n');
}

export async function trigger(session: Session, type: WebhookEventName, say: Say): Promise<void> {
  const recipe = recipes[type];
  if (!recipe) throw new Error(`cannot trigger ${type}`);
  say(`Triggering ${type}: ${recipe.does}`);
  await recipe.run(new Runner(session, (text) => { say(`  ${text}`); }));
  say(`Done: ${type} was emitted (see pgw listen, or pgw logs for deliveries to your webhooks).`);
}
