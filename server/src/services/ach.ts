// ACH payments: debit and credit (a stored bank account, or new account details for which a customer is
// created), hold, unhold, void and refund, each through the ACH state machine of the spec. The network
// side (submission at the processor's batch time slot, clearing, returns) is in ach-network.ts.
import { newId } from '../platform/ids.ts';
import type { Knex } from 'knex';
import { AchTransactionStatus, PaymentMethodType, TransactionCreatorType, TransactionType } from '@pgw/client/enums';
import { sandboxMagicValues } from '@pgw/client/magic-values';
import type { components } from '@pgw/client/types';
import { ApiError } from '../platform/errors.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as customers from '../repositories/customers.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';
import { checkBankAccount, magicAccountCode } from './bank-accounts.ts';
import { stateRef } from './customers.ts';
import { amountCents, countPayment, lockOwn, paymentSetup, processorFor, refundableCents, refundedStatus, refusalText, sandboxed, uncountPayment } from './payments.ts';
import { nextBatchSlot } from './schedule.ts';
import { achCommandResult, achResult, responseDescription, statusName } from './transaction-view.ts';
import * as engine from './engine.ts';
import { achFamily } from './transaction-machine.ts';
import { type Cents, sumCents, wireText, ZERO_CENTS } from '../platform/money.ts';
import { within, type Scope } from '../platform/scope.ts';

type Schemas = components['schemas'];
type AchRequest = Schemas['AchDebitRequest'] | Schemas['AchCreditRequest'];

const RETURN_CODES: ReadonlySet<string> = new Set(sandboxMagicValues.achAccounts.family.returnCodes);
/** Magic account codes that fail at submission, with their response code (`96`: `096`). */
const FAILURES: ReadonlyMap<string, string> = new Map(sandboxMagicValues.achAccounts.values.flatMap((a) => (a.responseCode === null ? [] : [[a.code, a.responseCode] as const])));

/** The outcome a sandbox magic account code `NN` stands for: `RNN` (a listed return code), `096`, or none. */
export function sandboxOutcomeOf(code: string | null): string | null {
  if (code === null) return null;
  return FAILURES.get(code) ?? (RETURN_CODES.has(`R${code}`) ? `R${code}` : null);
}

interface Account {
  customerId: string | null;
  paymentMethodId: string | null;
  last4: string;
  routingNumber: string;
  magicCode: string | null;
}

type Problems = Record<string, string[]>;
const add = (errors: Problems, field: string, message: string): void => { (errors[field] ??= []).push(message); };

/** A stored bank account of the merchant's customer; 400 naming the field otherwise. */
async function storedAccount(db: Knex, merchantId: string, body: AchRequest, errors: Problems): Promise<Account | undefined> {
  const customerId = body.customerId?.toLowerCase() ?? null;
  const paymentMethodId = (body.paymentMethodId ?? '').toLowerCase();
  if (customerId === null) {
    add(errors, 'customerId', 'is required with paymentMethodId');
    return undefined;
  }
  const owner = await customers.findCustomerPaymentMethod(db, merchantId, customerId, paymentMethodId);
  if (!owner) {
    add(errors, 'customerId', "is not one of the merchant's customers");
    return undefined;
  }
  const { method } = owner;
  if (method?.kind !== 'bankAccount') {
    add(errors, 'paymentMethodId', "is not a stored bank account of the customer");
    return undefined;
  }
  return { customerId, paymentMethodId: method.id, last4: method.last4, routingNumber: method.routingNumber, magicCode: method.magicCode };
}

/**
 * New account details: each required field, the ABA check and the account number's form. The holder's
 * address and contact are required too unless the payment's customer is known already (`holderKnown`).
 */
function newAccount(body: AchRequest, errors: Problems, holderKnown: boolean): (Account & { body: AchRequest }) | undefined {
  const before = Object.keys(errors).length;
  const required = ['routingNumber', 'accountNumber', 'accountType', 'accountHolderType', ...(holderKnown ? [] : ['billingAddress', 'contactInfo'])] as const;
  for (const field of required as readonly ('routingNumber' | 'accountNumber' | 'accountType' | 'accountHolderType' | 'billingAddress' | 'contactInfo')[]) {
    if (body[field] === undefined || body[field] === null) add(errors, field, 'is required when no stored bank account is used');
  }
  if (body.routingNumber && body.accountNumber && body.accountType !== undefined && body.accountHolderType !== undefined) {
    checkBankAccount({ routingNumber: body.routingNumber, accountNumber: body.accountNumber, accountType: body.accountType, accountHolderType: body.accountHolderType }, errors);
  }
  if (Object.keys(errors).length > before || !body.routingNumber || !body.accountNumber) return undefined;
  return { customerId: null, paymentMethodId: null, last4: body.accountNumber.slice(-4), routingNumber: body.routingNumber, magicCode: magicAccountCode(body.accountNumber), body };
}

/**
 * The customer record the interface generates for a payment from new account details; `counted`: the payment
 * it starts with counted (a debit that is approved), as countPayment would count it.
 */
async function generateCustomer(db: Knex, merchantId: string, body: AchRequest, now: string, counted: Cents | null): Promise<string> {
  const contact = body.contactInfo;
  const address = (a: AchRequest['billingAddress']): customers.AddressValue | null => (a ? {
    addressLine1: a.line1, addressLine2: a.line2 ?? null, city: a.city, zip: a.postalCode,
    stateName: a.stateName ?? stateRef(a.stateId)?.name ?? null, stateId: a.stateId, countryId: a.countryId,
  } : null);
  const id = newId();
  await customers.insertCustomer(db, {
    id, merchantId, createdOn: now,
    fields: {
      firstName: contact?.firstName ?? null, lastName: contact?.lastName ?? '', companyName: contact?.companyName ?? null,
      email: contact?.email ?? null, mobilePhoneNumber: contact?.mobilePhoneNumber ?? null,
      smsNotificationsEnabled: contact?.smsNotification ?? false, useBillingAsShipping: false,
      billingAddress: address(body.billingAddress), shippingAddress: address(body.shippingAddress ?? null),
    },
    ...(counted === null ? {} : { firstPayment: { amountCents: counted, on: now } }),
  });
  return id;
}

export interface AchCreate {
  typeId: typeof TransactionType.AchDebit | typeof TransactionType.AchRefund;
  creatorTypeId?: number;
  invoiceId?: string | null;
  /** The payment's customer when the caller knows it (an invoice's; null for none): no customer is generated. */
  customerId?: string | null;
  /** When the payer ticked the authorization box (an invoice's ACH payment), kept for the compliance audit. */
  authorizationConsentOn?: string;
}

/**
 * Creates an ACH debit or credit: Scheduled (000) for the processor's next batch time slot, or Failed
 * (102) above the merchant's maxTransactionAmount. Runs in the caller's transaction when there is one.
 */
export async function createAch(scope: Scope, body: AchRequest, create: AchCreate): Promise<TransactionRecord> {
  const { merchantId } = scope;
  const now = scope.clock.now();
  const cents = amountCents(body.amount);
  return withTransaction(scope.db, async (tx) => {
    const errors: Problems = {};
    // The reads first: on PostgreSQL the writes that follow then go out together (platform/transaction.ts).
    const setup = await paymentSetup(within(scope, tx), PaymentMethodType.ElectronicCheck, body.paymentProcessorId, errors);
    const { processor } = setup;
    const stored = body.paymentMethodId !== undefined && body.paymentMethodId !== null;
    const account = stored ? await storedAccount(tx, merchantId, body, errors) : newAccount(body, errors, create.customerId !== undefined);
    if (Object.keys(errors).length > 0 || !account || !processor) throw new ApiError('validation_failed', { errors });
    const at = iso(now);
    const limit = setup.limitCents;
    const code = limit !== null && cents > limit ? '102' : '000';
    const approved = code === '000';
    const counts = approved && create.typeId === TransactionType.AchDebit;
    // The caller's customer (an invoice's, or none), the stored account's, or one generated for this payment.
    const generated = create.customerId === undefined && account.customerId === null;
    const customerId = generated ? await generateCustomer(tx, merchantId, body, at, counts ? cents : null)
      : create.customerId !== undefined ? create.customerId : account.customerId;
    const record: TransactionRecord = {
      id: newId(), merchantId, paymentMethodTypeId: PaymentMethodType.ElectronicCheck, typeId: create.typeId,
      statusId: approved ? AchTransactionStatus.Scheduled : AchTransactionStatus.Failed,
      processorId: processor.id, creatorTypeId: create.creatorTypeId ?? TransactionCreatorType.ApiToken,
      amountCents: cents, tipAmountCents: ZERO_CENTS, approvedAmountCents: null, processedAmountCents: approved ? cents : ZERO_CENTS, refundedAmountCents: ZERO_CENTS,
      responseCode: code, responseDescription: responseDescription(code), authorizationCode: null, returnCode: null,
      customerId, paymentMethodId: account.paymentMethodId, invoiceId: create.invoiceId ?? null,
      panMask: null, cardType: null, avsResult: null, cvvResult: null,
      accountLast4: account.last4, routingNumber: account.routingNumber, secCode: body.secCode,
      isFasterProcessing: body.isFasterProcessing ?? false,
      sandboxOutcome: sandboxed(scope) ? sandboxOutcomeOf(account.magicCode) : null,
      orderNumber: null, description: null, authorizationConsentOn: create.authorizationConsentOn ?? null, createdOn: at, modifiedOn: at, submittedOn: null, settledOn: null, expiresAt: null,
      dueAction: approved ? 'submit' : null,
      dueAt: approved ? iso(nextBatchSlot(now, processor.settlementBatchTimeSlots)) : null,
      settlementBatchId: null,
    };
    await engine.create({ db: tx }, achFamily, record, create.typeId === TransactionType.AchDebit ? 'createAchDebit' : 'createAchCredit', now, {}, { responseCode: code });
    // A generated customer was inserted with this payment counted.
    if (counts && !generated) await countPayment(tx, record, cents);
    return record;
  });
}

export async function createDebit(scope: Scope, body: Schemas['AchDebitRequest']): Promise<Schemas['AchTransactionResult']> {
  const record = await createAch(scope, body, { typeId: TransactionType.AchDebit });
  return achResult(record, { typeId: TransactionType.AchDebit, responseCode: record.responseCode ?? '000', responseDescription: record.responseDescription ?? '', processedCents: record.processedAmountCents });
}

export async function createCredit(scope: Scope, body: Schemas['AchCreditRequest']): Promise<Schemas['AchTransactionResult']> {
  const record = await createAch(scope, body, { typeId: TransactionType.AchRefund });
  return achResult(record, { typeId: TransactionType.AchRefund, responseCode: record.responseCode ?? '000', responseDescription: record.responseDescription ?? '', processedCents: record.processedAmountCents });
}

type Command = 'holdAchTransaction' | 'unholdAchTransaction' | 'voidAchTransaction';

const COMMANDS: Record<Command, { typeId: number; verb: string }> = {
  holdAchTransaction: { typeId: TransactionType.AchHold, verb: 'held' },
  unholdAchTransaction: { typeId: TransactionType.AchUnHold, verb: 'released' },
  voidAchTransaction: { typeId: TransactionType.AchCancel, verb: 'voided' },
};

/** Hold, unhold or void: the row of the command, or 101 with nothing changed. */
export async function command(scope: Scope, id: string, trigger: Command): Promise<Schemas['AchCommandResult']> {
  const { merchantId } = scope;
  const { typeId, verb } = COMMANDS[trigger];
  return withTransaction(scope.db, async (tx) => {
    const record = await lockOwn(tx, merchantId, id, PaymentMethodType.ElectronicCheck);
    const now = scope.clock.now();
    let changes: Partial<TransactionRecord> = { responseCode: '000', responseDescription: 'Approved' };
    if (trigger === 'unholdAchTransaction') {
      // Processing resumes: the entry goes to the network at the processor's next batch time slot from now.
      const processor = await processorFor(tx, merchantId, PaymentMethodType.ElectronicCheck, record.processorId);
      changes = { ...changes, dueAction: 'submit', dueAt: iso(nextBatchSlot(now, processor.settlementBatchTimeSlots)) };
    } else {
      changes = { ...changes, dueAction: null, dueAt: null };
    }
    const after = await engine.transition({ db: tx }, achFamily, record, trigger, now, changes);
    if (!after) {
      const text = record.statusId === AchTransactionStatus.InProgress && trigger === 'voidAchTransaction'
        ? 'A transaction submitted to the network cannot be voided.'
        : refusalText(verb, statusName(record));
      return achCommandResult(record, { typeId, responseCode: '101', responseDescription: text });
    }
    if (trigger === 'voidAchTransaction' && record.typeId === TransactionType.AchDebit) await uncountPayment(tx, record, record.processedAmountCents);
    return achCommandResult(after, { typeId, responseCode: '000', responseDescription: 'Approved' });
  });
}

/**
 * Refunds a settled or partially refunded debit, in as many parts as it takes, up to what remains refundable
 * (103 above it; no amount: all of it): PartiallyRefunded while some remains, Refunded when the refunds sum to
 * the processed amount; 101 in any other status and for a credit. The row lock makes concurrent refunds add up.
 */
export async function refund(scope: Scope, id: string, body: Schemas['AchRefundRequest'] | undefined): Promise<Schemas['AchTransactionResult']> {
  const { merchantId } = scope;
  const requested = body?.amount === undefined ? undefined : amountCents(body.amount);
  return withTransaction(scope.db, async (tx) => {
    const record = await lockOwn(tx, merchantId, id, PaymentMethodType.ElectronicCheck);
    const refused = (code: string, text: string): Schemas['AchTransactionResult'] =>
      achResult(record, { typeId: TransactionType.AchRefund, responseCode: code, responseDescription: text, processedCents: ZERO_CENTS });
    if (!engine.permits(achFamily, record, 'refundAchTransaction', scope.clock.now())) {
      return refused('101', record.typeId === TransactionType.AchRefund ? 'An ACH credit cannot be refunded.' : 'Only a settled transaction can be refunded.');
    }
    const remaining = refundableCents(record);
    const cents = requested ?? remaining;
    if (cents > remaining) {
      return refused('103', `The amount exceeds the refundable amount of ${wireText(remaining)}.`);
    }
    const after = await engine.transition({ db: tx }, achFamily, record, 'refundAchTransaction', scope.clock.now(), {
      refundedAmountCents: sumCents(record.refundedAmountCents, cents), responseCode: '000', responseDescription: 'Approved',
    }, { to: refundedStatus(record, cents, AchTransactionStatus) });
    if (!after) return refused('101', 'Only a settled transaction can be refunded.');
    return achResult(after, { typeId: TransactionType.AchRefund, responseCode: '000', responseDescription: 'Approved', processedCents: cents });
  });
}
