// Card payments: authorization, sale and refund without reference (a card entered now or a stored one,
// saved when asked), capture, void and refund, each through the card state machine of the spec. Settlement
// batches and the 7-day expiry are in card-network.ts.
import { newId } from '../platform/ids.ts';
import type { Knex } from 'knex';
import { CardTransactionStatus, PaymentMethodType, TransactionCreatorType, TransactionType } from '@pgw/client/enums';
import type { components } from '@pgw/client/types';
import type { Deps } from '../platform/deps.ts';
import { ApiError } from '../platform/errors.ts';
import { type Cents, sumCents, toCents, wireText, ZERO_CENTS } from '../platform/money.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as customers from '../repositories/customers.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { avsResultOf, cvvResultOf, issuerAnswer, magicCodeOfCard } from './card-outcomes.ts';
import { cardTypeOf, isExpired, panMask, panProblem, securityCodeProblem } from './cards.ts';
import { addCard } from './payment-methods.ts';
import { amountCents, authorizationCode, countPayment, lockOwn, paymentSetup, processorFor, refundableCents, refundedStatus, refusalText, sandboxed, uncountPayment } from './payments.ts';
import { AUTHORIZATION_LIFETIME_MS, nextBatchSlot } from './schedule.ts';
import { cardResult, responseDescription, statusName, type CommandOutcome } from './transaction-view.ts';
import * as engine from './engine.ts';
import { cardFamily } from './transaction-machine.ts';
import { within, type Scope, type Tx } from '../platform/scope.ts';

type Schemas = components['schemas'];
type PaymentRequest = Schemas['CardPaymentRequest'] | Schemas['CardRefundWithoutReferenceRequest'];
type CardResult = Schemas['CardTransactionResult'];

type Problems = Record<string, string[]>;
const add = (errors: Problems, field: string, message: string): void => { (errors[field] ??= []).push(message); };

interface PayingCard {
  pan?: string;
  panMask: string;
  cardType: number;
  expired: boolean;
  securityCodeGiven: boolean;
  customerId: string | null;
  paymentMethodId: string | null;
}

/** The card of a request: entered (checked, never kept whole) or stored; 400 naming each field at fault. */
async function payingCard(db: Knex, merchantId: string, body: PaymentRequest, now: Date, errors: Problems): Promise<PayingCard | undefined> {
  const customerId = body.customerId?.toLowerCase();
  const save = 'savePaymentMethod' in body && body.savePaymentMethod;
  if ((body.card === undefined) === (body.paymentMethodId === undefined)) {
    add(errors, body.card === undefined ? 'card' : 'paymentMethodId', 'give exactly one of card (a card entered now) and paymentMethodId (a stored card)');
    return undefined;
  }
  // The customer with the stored card it names (none when a card is entered), in one query.
  const owner = customerId === undefined ? undefined : await customers.findCustomerPaymentMethod(db, merchantId, customerId, (body.paymentMethodId ?? '').toLowerCase());
  if (customerId !== undefined && !owner) {
    add(errors, 'customerId', "is not one of the merchant's customers");
    return undefined;
  }
  if (body.card) {
    if (save && customerId === undefined) add(errors, 'customerId', 'is required with savePaymentMethod');
    const problem = panProblem(body.card.pan);
    if (problem) add(errors, 'card.pan', problem);
    const cardType = cardTypeOf(body.card.pan);
    const code = body.card.securityCode;
    if (code !== undefined) {
      const codeProblem = securityCodeProblem(code, cardType);
      if (codeProblem) add(errors, 'card.securityCode', codeProblem);
    }
    if (problem || cardType === undefined || Object.keys(errors).length > 0) return undefined;
    return {
      pan: body.card.pan, panMask: panMask(body.card.pan), cardType,
      // An expired card is the issuer's decline (054), not a malformed request.
      expired: isExpired(body.card.expirationMonth, body.card.expirationYear, now),
      securityCodeGiven: code !== undefined, customerId: customerId ?? null, paymentMethodId: null,
    };
  }
  if (customerId === undefined) {
    add(errors, 'customerId', 'is required with paymentMethodId');
    return undefined;
  }
  if (save) add(errors, 'savePaymentMethod', 'saves an entered card; a stored card is saved already');
  const method = owner?.method;
  if (method?.kind !== 'card') {
    add(errors, 'paymentMethodId', 'is not a stored card of the customer');
    return undefined;
  }
  if (Object.keys(errors).length > 0) return undefined;
  return {
    panMask: method.panMask, cardType: method.cardType, expired: isExpired(method.expirationMonth, method.expirationYear, now),
    securityCodeGiven: false, customerId, paymentMethodId: method.id,
  };
}

type Creation = 'authorizeCard' | 'createCardSale' | 'refundCardWithoutReference';

const CREATION_TYPE: Record<Creation, number> = { authorizeCard: TransactionType.Authorization, createCardSale: TransactionType.Sale, refundCardWithoutReference: TransactionType.RefundWORef };

export interface CardCreate {
  creatorTypeId?: number;
  invoiceId?: string | null;
  /** False when only the whole amount will do (an invoice's payment): a partial approval approves it whole. */
  partialAllowed?: boolean;
}

/** Status after the issuer's answer: the creation row of the table picks it by the response code. */
function statusAfter(trigger: Creation, code: string): number {
  const to = engine.rowFor(cardFamily, null, CREATION_TYPE[trigger], trigger, { responseCode: code })?.to;
  if (typeof to !== 'number') throw new ApiError('internal_error', { details: `no ${trigger} row for response code ${code}` });
  return to;
}

/**
 * Creates a card transaction (authorization, sale or refund without reference) and answers its result: a
 * decline or failure is a 200 business error. Saves the entered card when asked and approved.
 */
export async function createCard(scope: Scope, trigger: Creation, body: PaymentRequest, create: CardCreate = {}): Promise<{ record: TransactionRecord; result: CardResult }> {
  const { merchantId } = scope;
  const now = scope.clock.now();
  const cents = amountCents(body.amount);
  const tipCents = 'tipAmount' in body && body.tipAmount !== undefined ? toCents(body.tipAmount) : ZERO_CENTS;
  return withTransaction(scope.db, async (tx) => {
    const errors: Problems = {};
    if (tipCents > cents) add(errors, 'tipAmount', 'must not exceed amount');
    // The record, not only its id: an approved sale's settlement slot is read from it below.
    // The merchant's processors and limit in one read.
    const setup = await paymentSetup(within(scope, tx), PaymentMethodType.Card, body.paymentProcessorId, errors);
    const { processor } = setup;
    const card = await payingCard(tx, merchantId, body, now, errors);
    if (Object.keys(errors).length > 0 || !card || processor === undefined) throw new ApiError('validation_failed', { errors });
    const processorId = processor.id;
    const typeId = CREATION_TYPE[trigger];
    const cardCode = magicCodeOfCard(card);
    const answer = issuerAnswer({
      cents, limitCents: setup.limitCents, expired: card.expired, cardCode, sandbox: sandboxed(scope),
      partialAllowed: trigger !== 'refundCardWithoutReference' && create.partialAllowed !== false,
    });
    const statusId = statusAfter(trigger, answer.code);
    const reached = answer.code !== '102' && answer.code !== '096';
    const billing = 'billingAddress' in body ? body.billingAddress : undefined;
    const avs = reached ? avsResultOf(billing) : null;
    const cvv = reached ? cvvResultOf(card.securityCodeGiven, cardCode) : null;
    const approved = answer.approvedCents !== null;
    const at = iso(now);
    let paymentMethodId = card.paymentMethodId;
    if (approved && card.pan !== undefined && 'savePaymentMethod' in body && body.savePaymentMethod && card.customerId !== null && body.card) {
      paymentMethodId = await addCard(within(scope, tx), card.customerId, {
        pan: body.card.pan, expirationMonth: body.card.expirationMonth, expirationYear: body.card.expirationYear, name: body.card.cardholderName ?? null,
      });
    }
    const processed = approved && trigger !== 'authorizeCard' ? (answer.approvedCents ?? ZERO_CENTS) : ZERO_CENTS;
    const isAuthorization = trigger === 'authorizeCard';
    const record: TransactionRecord = {
      id: newId(), merchantId, paymentMethodTypeId: PaymentMethodType.Card, typeId, statusId, processorId,
      creatorTypeId: create.creatorTypeId ?? TransactionCreatorType.ApiToken,
      amountCents: cents, tipAmountCents: tipCents, approvedAmountCents: answer.approvedCents, processedAmountCents: processed, refundedAmountCents: ZERO_CENTS,
      responseCode: answer.code, responseDescription: responseDescription(answer.code), authorizationCode: approved ? authorizationCode() : null,
      returnCode: null, customerId: card.customerId, paymentMethodId, invoiceId: create.invoiceId ?? null,
      panMask: card.panMask, cardType: card.cardType, avsResult: avs, cvvResult: cvv,
      accountLast4: null, routingNumber: null, secCode: null, isFasterProcessing: false, sandboxOutcome: null,
      orderNumber: 'orderNumber' in body ? body.orderNumber ?? null : null, description: body.description ?? null, authorizationConsentOn: null,
      createdOn: at, modifiedOn: at, submittedOn: null, settledOn: null,
      expiresAt: isAuthorization ? iso(new Date(now.getTime() + AUTHORIZATION_LIFETIME_MS)) : null,
      dueAction: null, dueAt: null, settlementBatchId: null,
    };
    if (approved) {
      if (isAuthorization) Object.assign(record, { dueAction: 'expire', dueAt: record.expiresAt });
      else Object.assign(record, { dueAction: 'settle', dueAt: iso(nextBatchSlot(now, processor.settlementBatchTimeSlots)) });
    }
    await engine.create({ db: tx }, cardFamily, record, trigger, now, {}, { responseCode: answer.code });
    if (approved && trigger === 'createCardSale') await countPayment(tx, record, processed);
    const result = cardResult(record, {
      typeId, responseCode: answer.code, responseDescription: record.responseDescription ?? '', requestedCents: cents,
      processedCents: processed, approvedCents: answer.approvedCents, cvvResult: cvv, avsResult: avs,
    });
    return { record, result };
  });
}

export const createCardTransaction = async (scope: Scope, trigger: Creation, body: PaymentRequest): Promise<CardResult> =>
  (await createCard(scope, trigger, body)).result;

/** The answer of a command refused with `code` (status unchanged, nothing moved). */
function refused(record: TransactionRecord, typeId: number, code: string, text: string, requestedCents: Cents): CardResult {
  return cardResult(record, { typeId, responseCode: code, responseDescription: text, requestedCents, processedCents: ZERO_CENTS, approvedCents: null, cvvResult: null, avsResult: null });
}

function approved(record: TransactionRecord, typeId: number, cents: Cents): CardResult {
  const outcome: CommandOutcome = { typeId, responseCode: '000', responseDescription: 'Approved', requestedCents: cents, processedCents: cents, approvedCents: cents, cvvResult: null, avsResult: record.avsResult };
  return cardResult(record, outcome);
}

const APPROVED = { responseCode: '000', responseDescription: 'Approved' };

/** Captures an authorization, up to the approved amount (103 above it; 101 in any other status). */
export async function capture(scope: Scope, id: string, body: Schemas['CardCaptureRequest'] | undefined): Promise<CardResult> {
  const { merchantId } = scope;
  const requested = body?.amount === undefined ? undefined : amountCents(body.amount);
  return withTransaction(scope.db, async (tx) => {
    const record = await lockOwn(tx, merchantId, id, PaymentMethodType.Card);
    const cents = requested ?? record.approvedAmountCents ?? record.amountCents;
    if (!engine.permits(cardFamily, record, 'captureCardTransaction', scope.clock.now())) {
      return refused(record, TransactionType.Capture, '101', refusalText('captured', statusName(record)), cents);
    }
    const approvedCents = record.approvedAmountCents ?? ZERO_CENTS;
    if (cents > approvedCents) return refused(record, TransactionType.Capture, '103', `The amount exceeds the approved amount of ${wireText(approvedCents)}.`, cents);
    const now = scope.clock.now();
    const processor = await processorFor(tx, merchantId, PaymentMethodType.Card, record.processorId);
    const after = await engine.transition({ db: tx }, cardFamily, record, 'captureCardTransaction', now, {
      ...APPROVED, processedAmountCents: cents, dueAction: 'settle', dueAt: iso(nextBatchSlot(now, processor.settlementBatchTimeSlots)),
    });
    if (!after) return refused(record, TransactionType.Capture, '101', refusalText('captured', statusName(record)), cents);
    await countPayment(tx, after, cents);
    return approved(after, TransactionType.Capture, cents);
  });
}

/** The amount a void releases (an authorization's approved amount) or reverses (a capture's). */
const voidedCents = (record: TransactionRecord): Cents =>
  (record.statusId === CardTransactionStatus.Captured ? record.processedAmountCents : record.approvedAmountCents ?? ZERO_CENTS);

async function voidLocked(tx: Tx, deps: Deps, record: TransactionRecord, trigger: 'voidCardTransaction' | 'refundCardTransaction'): Promise<CardResult | undefined> {
  const cents = voidedCents(record);
  const after = await engine.transition({ db: tx }, cardFamily, record, trigger, deps.clock.now(), { ...APPROVED, dueAction: null, dueAt: null }, { to: CardTransactionStatus.Voided });
  if (!after) return undefined;
  if (record.statusId === CardTransactionStatus.Captured && record.typeId !== TransactionType.RefundWORef) await uncountPayment(tx, record, record.processedAmountCents);
  return approved(after, TransactionType.Void, cents);
}

/** Voids an authorization or an unsettled capture (101 in any other status). */
export async function voidTransaction(scope: Scope, id: string): Promise<CardResult> {
  const { merchantId } = scope;
  return withTransaction(scope.db, async (tx) => {
    const record = await lockOwn(tx, merchantId, id, PaymentMethodType.Card);
    return (await voidLocked(tx, scope, record, 'voidCardTransaction'))
      ?? refused(record, TransactionType.Void, '101', refusalText('voided', statusName(record)), voidedCents(record));
  });
}

/**
 * Refunds a settled or partially refunded transaction, in as many parts as it takes, up to what remains
 * refundable (103 above it; no amount: all of it): PartiallyRefunded while some remains, Refunded when the
 * refunds sum to the processed amount. Voids a captured, unsettled one in full (104 for a partial amount);
 * 101 in any other status and for a refund without reference. The row lock makes concurrent refunds add up.
 */
export async function refund(scope: Scope, id: string, body: Schemas['CardRefundRequest'] | undefined): Promise<CardResult> {
  const { merchantId } = scope;
  const requested = body?.amount === undefined ? undefined : amountCents(body.amount);
  return withTransaction(scope.db, async (tx) => {
    const record = await lockOwn(tx, merchantId, id, PaymentMethodType.Card);
    if (!engine.permits(cardFamily, record, 'refundCardTransaction', scope.clock.now())) {
      const cents = requested ?? record.processedAmountCents;
      const text = record.typeId === TransactionType.RefundWORef ? 'A refund without reference cannot be refunded.' : refusalText('refunded', statusName(record));
      return refused(record, TransactionType.Refund, '101', text, cents);
    }
    const remaining = refundableCents(record);
    const cents = requested ?? remaining;
    if (record.statusId === CardTransactionStatus.Captured) {
      if (cents !== record.processedAmountCents) {
        return refused(record, TransactionType.Refund, '104', 'Before settlement a refund voids the whole transaction: omit the amount or give the processed amount.', cents);
      }
      return (await voidLocked(tx, scope, record, 'refundCardTransaction')) ?? refused(record, TransactionType.Refund, '101', refusalText('refunded', statusName(record)), cents);
    }
    if (cents > remaining) {
      return refused(record, TransactionType.Refund, '103', `The amount exceeds the refundable amount of ${wireText(remaining)}.`, cents);
    }
    const after = await engine.transition({ db: tx }, cardFamily, record, 'refundCardTransaction', scope.clock.now(),
      { ...APPROVED, refundedAmountCents: sumCents(record.refundedAmountCents, cents) }, { to: refundedStatus(record, cents, CardTransactionStatus) });
    if (!after) return refused(record, TransactionType.Refund, '101', refusalText('refunded', statusName(record)), cents);
    return approved(after, TransactionType.Refund, cents);
  });
}
