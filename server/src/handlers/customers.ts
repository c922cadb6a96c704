// HTTP of the customers: create (with cards and bank accounts), search, read, update, delete.
import type { CustomersHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { components } from '@pgw/client/types';
import type { ServerContext } from '../platform/context.ts';
import { fromCents } from '../platform/money.ts';
import type { AddressValue, CustomerRecord } from '../repositories/customers.ts';
import type { StoredBankAccount, StoredCard, StoredPaymentMethod } from '../repositories/payment-methods.ts';
import { maskAccountNumber } from '../services/bank-accounts.ts';
import * as service from '../services/customers.ts';

type Schemas = components['schemas'];

const ACCOUNT_TYPES = { 1: 'Checking', 2: 'Savings' } as const;
const ACCOUNT_HOLDER_TYPES = { 1: 'Business', 2: 'Personal' } as const;

export function addressOf(address: AddressValue | null): Schemas['CustomerAddress'] {
  if (address === null) return null;
  return {
    addressLine1: address.addressLine1,
    addressLine2: address.addressLine2,
    city: address.city,
    zip: address.zip,
    stateName: address.stateName,
    state: service.stateRef(address.stateId),
    country: service.countryRef(address.countryId),
  };
}

const cardOf = (card: StoredCard, customer: CustomerRecord): Schemas['CustomerCard'] => ({
  id: card.id,
  name: card.name,
  isDefault: customer.defaultCardId === card.id,
  panMask: card.panMask,
  expirationMonth: card.expirationMonth,
  expirationYear: card.expirationYear,
  cardTokenType: card.cardTokenType,
  cardType: card.cardType,
  creditDebitType: card.creditDebitType,
});

const achAccountOf = (account: StoredBankAccount, customer: CustomerRecord): Schemas['CustomerAchAccount'] => ({
  id: account.id,
  name: account.name,
  isDefault: customer.defaultAchId === account.id,
  accountNumber: maskAccountNumber(account.last4),
  routingNumber: account.routingNumber,
  accountTypeId: account.accountTypeId,
  accountType: ACCOUNT_TYPES[account.accountTypeId],
  accountHolderTypeId: account.accountHolderTypeId,
  accountHolderType: ACCOUNT_HOLDER_TYPES[account.accountHolderTypeId],
  taxId: account.taxId,
});

const lastAmount = (customer: CustomerRecord): number | null =>
  (customer.lastTransactionAmountCents === null ? null : fromCents(customer.lastTransactionAmountCents));

function customerOf(customer: CustomerRecord, paymentMethods: StoredPaymentMethod[]): Schemas['Customer'] {
  const billingAddress = addressOf(customer.billingAddress);
  return {
    id: customer.id,
    merchantId: customer.merchantId,
    firstName: customer.firstName,
    lastName: customer.lastName,
    companyName: customer.companyName,
    email: customer.email,
    mobilePhoneNumber: customer.mobilePhoneNumber,
    isMobileNumberSmsNotificationsEnabled: customer.smsNotificationsEnabled,
    useBillingAsShippingAddress: customer.useBillingAsShipping,
    defaultPaymentMethodId: customer.defaultCardId,
    defaultAchPaymentMethodId: customer.defaultAchId,
    createdOn: customer.createdOn,
    modifiedOn: customer.modifiedOn,
    billingAddress,
    shippingAddress: customer.useBillingAsShipping ? billingAddress : addressOf(customer.shippingAddress),
    // Kept on the customer's row by the payment operations (zero and null until a payment is approved).
    lastTransactionDate: customer.lastTransactionDate,
    transactionsCount: customer.transactionsCount,
    transactionsVolume: fromCents(customer.transactionsVolumeCents),
    lastTransactionAmount: lastAmount(customer),
    // Kept on the customer's row by the subscription machine (Active and PastDue subscriptions).
    numberOfSubscriptions: customer.subscriptionsCount,
    cards: paymentMethods.filter((m): m is StoredCard => m.kind === 'card').map((card) => cardOf(card, customer)),
    achAccounts: paymentMethods.filter((m): m is StoredBankAccount => m.kind === 'bankAccount').map((account) => achAccountOf(account, customer)),
  };
}

export const customersHandlers = {
  async searchCustomers(input: op.SearchCustomersInput, context: ServerContext): Promise<op.SearchCustomersResult> {
    const { customerIds, ...list } = input.query;
    const page = await service.searchCustomers(context, context.scope, { ...list, ...(customerIds === undefined ? {} : { customerId: customerIds }) });
    return {
      status: 200,
      body: {
        items: page.items.map((customer) => ({
          id: customer.id,
          merchantId: customer.merchantId,
          createdOn: customer.createdOn,
          modifiedOn: customer.modifiedOn,
          lastTransactionDate: customer.lastTransactionDate,
          lastTransactionAmount: lastAmount(customer),
          // Kept on the customer's row by the subscription machine (Active and PastDue subscriptions).
          activeSubscriptionsAmount: fromCents(customer.activeSubscriptionsCents),
          contactName: service.contactName(customer),
          firstName: customer.firstName,
          lastName: customer.lastName,
          companyName: customer.companyName,
          email: customer.email,
          mobilePhoneNumber: customer.mobilePhoneNumber,
          isMobileNumberSmsNotificationsEnabled: customer.smsNotificationsEnabled,
          billingAddress: addressOf(customer.billingAddress),
          paymentMethodsCount: customer.paymentMethodsCount,
        })),
        total: page.total,
        totalIsExact: page.totalIsExact,
      },
    };
  },

  async createCustomer(input: op.CreateCustomerInput, context: ServerContext): Promise<op.CreateCustomerResult> {
    const id = await service.createCustomer(context.merchant(), input.body);
    return { status: 200, body: { id } };
  },

  async getCustomer(input: op.GetCustomerInput, context: ServerContext): Promise<op.GetCustomerResult> {
    const { customer, paymentMethods } = await service.getCustomer(context.merchant(), input.path.customerId);
    return { status: 200, body: customerOf(customer, paymentMethods) };
  },

  async updateCustomer(input: op.UpdateCustomerInput, context: ServerContext): Promise<op.UpdateCustomerResult> {
    await service.updateCustomer(context.merchant(), input.path.customerId, input.body);
    return { status: 200 };
  },

  async deleteCustomer(input: op.DeleteCustomerInput, context: ServerContext): Promise<op.DeleteCustomerResult> {
    await service.deleteCustomer(context.merchant(), input.path.customerId);
    return { status: 200 };
  },
} satisfies CustomersHandlers<ServerContext>;
