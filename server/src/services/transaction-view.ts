// Transactions as the wire shows them: the record of the status check and of the payment events
// (TransactionDetails), and the results of card and ACH commands. Money leaves integer cents here.
import { PaymentMethodType } from '@pgw/client/enums';
import type { components } from '@pgw/client/types';
import { type Cents, fromCents } from '../platform/money.ts';
import { enumeration } from '../platform/spec-data.ts';
import type { TransactionRecord } from '../repositories/transactions.ts';

type Schemas = components['schemas'];

/** The payment events whose data is the transaction record. */
export type TransactionEventName =
  | 'payment.card.authorized' | 'payment.card.captured' | 'payment.card.declined' | 'payment.card.failed' | 'payment.card.voided'
  | 'payment.card.refunded' | 'payment.ach.scheduled' | 'payment.ach.in_progress' | 'payment.ach.held' | 'payment.ach.released'
  | 'payment.ach.cancelled' | 'payment.ach.cleared' | 'payment.ach.charged_back' | 'payment.ach.failed' | 'payment.ach.refunded';

const TYPE_NAMES = enumeration('TransactionType');
const CARD_STATUS_NAMES = enumeration('CardTransactionStatus');
const ACH_STATUS_NAMES = enumeration('AchTransactionStatus');

export const typeName = (typeId: number): string => TYPE_NAMES.get(typeId) ?? String(typeId);

export const statusName = (record: Pick<TransactionRecord, 'paymentMethodTypeId' | 'statusId'>): string =>
  (record.paymentMethodTypeId === PaymentMethodType.Card ? CARD_STATUS_NAMES : ACH_STATUS_NAMES).get(record.statusId) ?? String(record.statusId);

const RESPONSE_DESCRIPTIONS: Record<string, string> = {
  '000': 'Approved',
  '005': 'Do not honor',
  '010': 'Partially approved',
  '014': 'Invalid card number',
  '051': 'Insufficient funds',
  '054': 'Expired card',
  '082': 'Security code mismatch',
  '096': 'Processing failure',
  '102': "Amount exceeds the merchant's maximum transaction amount.",
};

export const responseDescription = (code: string): string => RESPONSE_DESCRIPTIONS[code] ?? code;

type ResponseCode = Schemas['TransactionResponseCode'];
type ReturnCode = Schemas['AchReturnCode'];
type TransactionType = Schemas['TransactionType'];

const maskedAccount = (last4: string | null): string | null => (last4 === null ? null : `********${last4}`);

/** The status check's record, also the `data` of every payment event. */
export function transactionDetails(t: TransactionRecord): Schemas['TransactionDetails'] {
  return {
    transactionId: t.id,
    merchantId: t.merchantId,
    typeId: t.typeId as TransactionType,
    type: typeName(t.typeId),
    statusId: t.statusId,
    status: statusName(t),
    paymentMethodTypeId: t.paymentMethodTypeId,
    paymentProcessorId: t.processorId,
    creatorTypeId: t.creatorTypeId as Schemas['TransactionCreatorType'],
    amount: fromCents(t.amountCents),
    approvedAmount: t.approvedAmountCents === null ? null : fromCents(t.approvedAmountCents),
    processedAmount: fromCents(t.processedAmountCents),
    refundedAmount: fromCents(t.refundedAmountCents),
    responseCode: t.responseCode as ResponseCode | null,
    responseDescription: t.responseDescription,
    authorizationCode: t.authorizationCode,
    returnCode: t.returnCode as ReturnCode | null,
    customerId: t.customerId,
    paymentMethodId: t.paymentMethodId,
    panMask: t.panMask,
    cardType: t.cardType as Schemas['CardType'] | null,
    accountNumber: maskedAccount(t.accountLast4),
    routingNumber: t.routingNumber,
    createdOn: t.createdOn,
    modifiedOn: t.modifiedOn,
    settledOn: t.settledOn,
    expiresAt: t.expiresAt,
  };
}

/** What one command answers besides the record: its type, code, and the amounts it asked for and moved. */
export interface CommandOutcome {
  typeId: number;
  responseCode: string;
  responseDescription: string;
  requestedCents: Cents;
  processedCents: Cents;
  /** Null when the command was declined, failed or refused. */
  approvedCents: Cents | null;
  /** The security code result of this command (creations only). */
  cvvResult: string | null;
  avsResult: string | null;
}

export function cardResult(t: TransactionRecord, outcome: CommandOutcome): Schemas['CardTransactionResult'] {
  return {
    transactionId: t.id,
    typeId: outcome.typeId as TransactionType,
    type: typeName(outcome.typeId),
    statusId: t.statusId as Schemas['CardTransactionStatus'],
    status: statusName(t),
    responseCode: outcome.responseCode as ResponseCode,
    responseDescription: outcome.responseDescription,
    authorizationCode: outcome.approvedCents === null ? null : t.authorizationCode,
    requestedAmount: fromCents(outcome.requestedCents),
    approvedAmount: outcome.approvedCents === null ? null : fromCents(outcome.approvedCents),
    processedAmount: fromCents(outcome.processedCents),
    panMask: t.panMask ?? '',
    cardType: (t.cardType ?? 1) as Schemas['CardType'],
    avsResult: outcome.avsResult as Schemas['CardAvsResult'] | null,
    cvvResult: outcome.cvvResult as Schemas['CardCvvResult'] | null,
    customerId: t.customerId,
    paymentMethodId: t.paymentMethodId,
    createdOn: t.createdOn,
    expiresAt: t.expiresAt,
  };
}

export function achResult(t: TransactionRecord, outcome: Pick<CommandOutcome, 'typeId' | 'responseCode' | 'responseDescription' | 'processedCents'>): Schemas['AchTransactionResult'] {
  return { ...achCommandResult(t, outcome), processedAmount: fromCents(outcome.processedCents) };
}

/** Hold, unhold and void answer without processedAmount (the interface: absent on hold and unhold). */
export function achCommandResult(t: TransactionRecord, outcome: Pick<CommandOutcome, 'typeId' | 'responseCode' | 'responseDescription'>): Schemas['AchCommandResult'] {
  return {
    transactionId: t.id,
    typeId: outcome.typeId as TransactionType,
    type: typeName(outcome.typeId),
    statusId: t.statusId as Schemas['AchTransactionStatus'],
    status: statusName(t),
    responseDescription: outcome.responseDescription,
    responseCode: outcome.responseCode as ResponseCode,
  };
}
