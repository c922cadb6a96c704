// HTTP of a customer's stored payment methods: add a card or a bank account, list, update, delete, and
// make one the default of its kind.
import type { PaymentMethodsHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { components } from '@pgw/client/types';
import type { ServerContext } from '../platform/context.ts';
import type { StoredPaymentMethod } from '../repositories/payment-methods.ts';
import { BANK_ACCOUNT, CARD } from '../services/payment-methods.ts';
import { maskAccountNumber } from '../services/bank-accounts.ts';
import * as service from '../services/payment-methods.ts';

function listItemOf(method: StoredPaymentMethod & { isDefault: boolean }): components['schemas']['PaymentMethodListItem'] {
  const common = { id: method.id, name: method.name, isDefault: method.isDefault, createdOn: method.createdOn };
  if (method.kind === 'card') {
    return {
      ...common,
      paymentMethodTypeId: CARD,
      panMask: method.panMask,
      cardType: method.cardType,
      expirationMonth: method.expirationMonth,
      expirationYear: method.expirationYear,
      accountNumber: null,
      routingNumber: null,
      accountTypeId: null,
      accountHolderTypeId: null,
    };
  }
  return {
    ...common,
    paymentMethodTypeId: BANK_ACCOUNT,
    panMask: null,
    cardType: null,
    expirationMonth: null,
    expirationYear: null,
    accountNumber: maskAccountNumber(method.last4),
    routingNumber: method.routingNumber,
    accountTypeId: method.accountTypeId,
    accountHolderTypeId: method.accountHolderTypeId,
  };
}

export const paymentMethodsHandlers = {
  async listPaymentMethods(input: op.ListPaymentMethodsInput, context: ServerContext): Promise<op.ListPaymentMethodsResult> {
    const page = await service.listPaymentMethods(context.merchant(), input.path.customerId, input.query);
    return { status: 200, body: { items: page.items.map(listItemOf), total: page.total } };
  },

  async addCardPaymentMethod(input: op.AddCardPaymentMethodInput, context: ServerContext): Promise<op.AddCardPaymentMethodResult> {
    const id = await service.addCard(context.merchant(), input.path.customerId, input.body);
    return { status: 200, body: { id } };
  },

  async addAchPaymentMethod(input: op.AddAchPaymentMethodInput, context: ServerContext): Promise<op.AddAchPaymentMethodResult> {
    const id = await service.addBankAccount(context.merchant(), input.path.customerId, input.body);
    return { status: 200, body: { id } };
  },

  async updatePaymentMethod(input: op.UpdatePaymentMethodInput, context: ServerContext): Promise<op.UpdatePaymentMethodResult> {
    await service.updatePaymentMethod(context.merchant(), input.path.customerId, input.path.paymentMethodId, input.body);
    return { status: 200 };
  },

  async deletePaymentMethod(input: op.DeletePaymentMethodInput, context: ServerContext): Promise<op.DeletePaymentMethodResult> {
    await service.deletePaymentMethod(context.merchant(), input.path.customerId, input.path.paymentMethodId);
    return { status: 200 };
  },

  async makeDefaultPaymentMethod(input: op.MakeDefaultPaymentMethodInput, context: ServerContext): Promise<op.MakeDefaultPaymentMethodResult> {
    await service.makeDefault(context.merchant(), input.path.customerId, input.path.paymentMethodId);
    return { status: 200 };
  },
} satisfies PaymentMethodsHandlers<ServerContext>;
