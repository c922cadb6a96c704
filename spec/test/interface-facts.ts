// The interface document's facts, as data: what the spec must say, typed in once from
// ../shared/seed/payment-gateway-interface.md and checked against the bundled spec by faithfulness.ts.

export type Method = 'get' | 'post' | 'put' | 'delete';

/** Every operation of the interface: the 58 of its endpoint tables, the three payment-method operations it
 * references, and the two token services (whose addresses are {auth_url} and {crm_auth_url}). */
export const operations: readonly (readonly [Method, string])[] = [
  // ACH payments
  ['post', '/pay-api/v1/transactions/ach/payment'],
  ['post', '/pay-api/v1/transactions/ach/payment/credit'],
  ['post', '/pay-api/v1/transactions/{transactionId}'],
  ['post', '/pay-api/v1/transactions/ach/{transactionId}/hold'],
  ['post', '/pay-api/v1/transactions/ach/{transactionId}/unhold'],
  ['post', '/pay-api/v1/transactions/ach/{transactionId}/void'],
  ['post', '/pay-api/v1/transactions/ach/{transactionId}/refund'],
  // Customers
  ['post', '/pay-api/v1/customers'],
  ['get', '/pay-api/v1/customers'],
  ['get', '/pay-api/v1/customers/{customerId}'],
  ['put', '/pay-api/v1/customers/{customerId}'],
  ['delete', '/pay-api/v1/customers/{customerId}'],
  // Customer payment methods
  ['post', '/pay-api/v1/customers/{customerId}/payment-methods/cards'],
  ['post', '/pay-api/v1/customers/{customerId}/payment-methods/ach'],
  ['get', '/pay-api/v1/customers/{customerId}/payment-methods'],
  // Configuration
  ['get', '/pay-api/v1/configurations/payments'],
  ['get', '/pay-api/v1/configurations/contact-infos'],
  // Devices
  ['post', '/pay-api/v1/devices/tap-to-pay/jwt'],
  ['post', '/pay-api/v1/devices/{deviceId}/tap-to-pay/activate'],
  // Merchant API keys
  ['get', '/pay-api/v1/merchants/tokens'],
  ['post', '/pay-api/v1/merchants/tokens'],
  ['delete', '/pay-api/v1/merchants/tokens/{clientId}'],
  // Categories
  ['post', '/pay-int-api/categories'],
  ['get', '/pay-int-api/categories'],
  ['put', '/pay-int-api/categories/{categoryId}'],
  ['delete', '/pay-int-api/categories/{categoryId}'],
  // Line items
  ['post', '/pay-int-api/line-items'],
  ['get', '/pay-int-api/line-items'],
  ['put', '/pay-int-api/line-items/{lineItemId}'],
  ['delete', '/pay-int-api/line-items/{lineItemId}'],
  ['get', '/pay-int-api/line-items/unit-types'],
  // Invoices
  ['post', '/pay-int-api/invoices'],
  ['get', '/pay-int-api/invoices'],
  ['get', '/pay-int-api/invoices/{invoiceId}'],
  ['put', '/pay-int-api/invoices/{invoiceId}'],
  ['delete', '/pay-int-api/invoices/{invoiceId}'],
  ['post', '/pay-int-api/invoices/publish'],
  ['post', '/pay-int-api/invoices/{invoiceId}/submit'],
  ['post', '/pay-int-api/invoices/{invoiceId}/ach/submit'],
  ['get', '/pay-int-api/invoices/{invoiceId}/calculations'],
  ['put', '/pay-int-api/invoices/{invoiceId}/cancel'],
  ['put', '/pay-int-api/invoices/{invoiceId}/mark-as-paid'],
  ['post', '/pay-int-api/invoices/{invoiceId}/send-email-notification'],
  ['post', '/pay-int-api/invoices/{invoiceId}/send-published-sms-notification'],
  ['get', '/pay-int-api/invoices/{invoiceId}/download-pdf'],
  ['get', '/pay-int-api/merchants/{merchantId}/invoices/settings'],
  ['put', '/pay-int-api/merchants/{merchantId}/invoices/settings'],
  // Webhooks
  ['get', '/v2/webhooks/event-types'],
  ['post', '/v2/webhooks/endpoints'],
  ['post', '/v2/webhooks/endpoints/{webhookId}/ping'],
  ['get', '/v2/webhooks/endpoints'],
  ['get', '/v2/webhooks/endpoints/{webhookId}'],
  ['put', '/v2/webhooks/endpoints/{webhookId}'],
  ['delete', '/v2/webhooks/endpoints/{webhookId}'],
  ['get', '/v2/webhooks/delivery-logs'],
  ['get', '/v2/webhooks/delivery-logs/{webhookId}'],
  ['get', '/v2/webhooks/delivery-logs/export'],
  ['post', '/v2/webhooks/delivery-logs/{id}/retry'],
  // Referenced payment-method operations
  ['put', '/pay-api/v1/customers/{customerId}/payment-methods/{paymentMethodId}'],
  ['delete', '/pay-api/v1/customers/{customerId}/payment-methods/{paymentMethodId}'],
  ['put', '/pay-api/v1/customers/{customerId}/payment-methods/{paymentMethodId}/make-default'],
];

/** The token services: their interface address (x-interface-address) and their grants. */
export const tokenServices = [
  { address: '{auth_url}/oauth2/token', grants: ['client_credentials', 'refresh_token'] },
  { address: '{crm_auth_url}/oauth2/token', grants: ['password', 'refresh_token'] },
] as const;

/** Enumerations with the ids and names the interface gives (designed additions are checked elsewhere). */
export const enumerations: Readonly<Record<string, readonly (readonly [number, string])[]>> = {
  AccountType: [[1, 'Checking'], [2, 'Savings']],
  AccountHolderType: [[1, 'Business'], [2, 'Personal']],
  AffiliateStatus: [[1, 'Active'], [2, 'Suspended']],
  AffiliateBusinessModelType: [[1, 'SingleAffiliateModel'], [2, 'SubAffiliateModel']],
  BusinessCategory: [[1, 'WebDeveloper'], [2, 'IndependentSoftwareVendor'], [3, 'IndependentSalesOrganization']],
  CardType: [[0, 'Unknown']],
  PaymentMethodType: [[1, 'Card'], [2, 'ElectronicCheck']],
  Status: [[1, 'Active'], [2, 'Inactive']],
  PaymentProcessorType: [[1, 'CardProcessor'], [2, 'Eft']],
  TransactionType: [
    [1, 'Authorization'], [2, 'Sale'], [3, 'Capture'], [4, 'Void'], [5, 'Refund'], [6, 'CardAuthentication'],
    [7, 'RefundWORef'], [8, 'TipAdjustment'], [11, 'AchDebit'], [12, 'AchRefund'], [13, 'AchHold'], [14, 'AchUnHold'],
  ],
  TransactionCreatorType: [
    [1, 'Portal'], [2, 'ApiToken'], [3, 'Terminal'], [4, 'Invoice'], [5, 'QuickPayment'], [6, 'WebComponent'],
    [7, 'Subscription'], [8, 'MobileApp'], [9, 'TapToPay'],
  ],
  Currency: [[1, 'USD']],
  AchTransactionStatus: [[21, 'Scheduled'], [22, 'Cancelled'], [23, 'ChargedBack'], [26, 'Held']],
  TapToPayStatus: [[2, 'Active']],
};

/** Enumerations whose full value list the interface gives: the spec may add nothing to them. */
export const closedEnumerations: readonly string[] = [
  'AccountType', 'AccountHolderType', 'AffiliateStatus', 'AffiliateBusinessModelType', 'BusinessCategory',
  'PaymentMethodType', 'Status', 'PaymentProcessorType', 'TransactionCreatorType', 'Currency',
];

/** Facts about values the interface gives only in part. */
export const partialNames = [
  { enumeration: 'TransactionType', id: 15, startsWith: 'AchCan' },
  { enumeration: 'CardType', ids: [1, 2, 3, 4, 5, 6] },
] as const;

/** Event types: name, event id, category. */
export const events: readonly (readonly [string, number, string])[] = [
  ['settlement.batch.completed', 2, 'Settlement'],
  ['payment.card.authorized', 3, 'Card Payments'],
  ['payment.card.captured', 4, 'Card Payments'],
  ['payment.card.declined', 5, 'Card Payments'],
  ['payment.card.failed', 6, 'Card Payments'],
  ['payment.card.voided', 7, 'Card Payments'],
  ['payment.card.refunded', 8, 'Card Payments'],
  ['payment.ach.scheduled', 9, 'ACH Payments'],
  ['payment.ach.in_progress', 10, 'ACH Payments'],
  ['payment.ach.held', 11, 'ACH Payments'],
  ['payment.ach.released', 12, 'ACH Payments'],
  ['payment.ach.cancelled', 13, 'ACH Payments'],
  ['payment.ach.cleared', 14, 'ACH Payments'],
  ['payment.ach.charged_back', 15, 'ACH Payments'],
  ['payment.ach.failed', 16, 'ACH Payments'],
  ['payment.ach.refunded', 17, 'ACH Payments'],
  ['invoice.created', 18, 'Invoices'],
  ['invoice.paid', 19, 'Invoices'],
  ['subscription.created', 21, 'Subscriptions'],
  ['subscription.paid', 22, 'Subscriptions'],
  ['subscription.payment_failed', 23, 'Subscriptions'],
  ['subscription.delinquent', 24, 'Subscriptions'],
  ['quick_payment.created', 25, 'Quick Payments'],
  ['quick_payment.paid', 26, 'Quick Payments'],
  ['merchant.created', 30, 'Merchants'],
  ['api_key.created', 31, 'API Keys'],
  ['api_key.deleted', 32, 'API Keys'],
  ['terminal.added', 33, 'Terminals'],
  ['terminal.out_of_paper', 35, 'Terminals'],
];

export const webhookPayloadFields = ['id', 'type', 'timestamp', 'merchantId', 'data'] as const;
export const webhookSignatureHeaders = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** Where a body lives: the request body of an operation, or one of its responses by status. */
export type Where = 'request' | '200' | '400' | '404';

/**
 * Fields of a body. A field is written `name`, or `name?` when it is nullable in the interface
 * ('or null'); `a.b` descends into an object, `a[].b` into the items of an array, and a leading `[]`
 * into the items of a top-level array. `required` lists the fields the interface marks required.
 */
export interface BodyFacts {
  readonly method: Method;
  readonly path: string;
  readonly where: Where;
  readonly fields: readonly string[];
  readonly required?: readonly string[];
}

const paymentMethodCardFields = ['name', 'pan', 'expirationMonth', 'expirationYear', 'securityCode'];
const customerAddressRead = ['addressLine1', 'addressLine2', 'city', 'zip', 'stateName', 'state', 'country'];
const calculationFields = [
  'subTotalAmount', 'totalAmount', 'shippingAmount', 'taxAmount', 'taxPercentage', 'feesAmount', 'feesPercentage',
  'discountAmount', 'discountPercentage', 'surchargeAmount', 'surchargePercentage', 'cashDiscountAmount',
  'cashDiscountPercentage',
];
const invoiceRequestFields = [
  'dueDate?', 'cardPaymentProcessorId?', 'achPaymentProcessorId?', 'additionalNotes', 'shippingAmount?',
  'taxPercentage?', 'feesPercentage?', 'discountPercentage?', 'merchantContactInfoId?', 'customerId?',
  'achAllowFasterProcessing?', 'customer', 'lineItems', 'canPriceBeForceOverrided',
];
const invoiceLineItemFields = [
  'id', 'lineItemId', 'unitTypeId', 'productName', 'description', 'sku', 'unitPrice', 'quantity',
  'discountPercentage', 'totalAmount',
];
const invoiceCustomerFields = [
  'firstName', 'lastName', 'companyName', 'email', 'mobilePhoneNumber', 'isMobileNumberSmsNotificationsEnabled',
  'useBillingAsShippingAddress', 'billingAddress', 'shippingAddress',
];
const achResultFields = ['transactionId', 'typeId', 'type?', 'statusId', 'status?', 'responseDescription?', 'responseCode?'];
const achDebitFields = [
  'amount', 'paymentProcessorId', 'secCode', 'requesterIPaddress', 'paymentMethodId?', 'customerId?', 'routingNumber?',
  'accountNumber?', 'accountType', 'accountHolderType', 'billingAddress', 'contactInfo', 'shippingAddress',
  'isFasterProcessing', 'taxId?',
  'billingAddress.city', 'billingAddress.countryId', 'billingAddress.line1', 'billingAddress.line2?',
  'billingAddress.postalCode', 'billingAddress.stateName', 'billingAddress.stateId',
  'contactInfo.firstName', 'contactInfo.lastName', 'contactInfo.companyName', 'contactInfo.email',
  'contactInfo.mobilePhoneNumber?', 'contactInfo.smsNotification?',
];

export const bodies: readonly BodyFacts[] = [
  // ACH
  {
    method: 'post', path: '/pay-api/v1/transactions/ach/payment', where: 'request', fields: achDebitFields,
    required: ['amount', 'paymentProcessorId', 'secCode', 'requesterIPaddress'],
  },
  {
    method: 'post', path: '/pay-api/v1/transactions/ach/payment/credit', where: 'request', fields: achDebitFields,
    required: ['amount', 'paymentProcessorId', 'secCode', 'requesterIPaddress', 'paymentMethodId'],
  },
  { method: 'post', path: '/pay-api/v1/transactions/ach/payment', where: '200', fields: [...achResultFields, 'processedAmount'] },
  { method: 'post', path: '/pay-api/v1/transactions/ach/payment/credit', where: '200', fields: [...achResultFields, 'processedAmount'] },
  { method: 'post', path: '/pay-api/v1/transactions/ach/{transactionId}/hold', where: '200', fields: achResultFields },
  { method: 'post', path: '/pay-api/v1/transactions/ach/{transactionId}/unhold', where: '200', fields: achResultFields },
  { method: 'post', path: '/pay-api/v1/transactions/ach/{transactionId}/void', where: '200', fields: achResultFields },
  { method: 'post', path: '/pay-api/v1/transactions/{transactionId}', where: '200', fields: ['status?', 'statusId'] },
  // Customers
  {
    method: 'post', path: '/pay-api/v1/customers', where: 'request',
    fields: [
      'firstName', 'lastName', 'companyName', 'email', 'mobilePhoneNumber', 'isMobileNumberSmsNotificationsEnabled',
      'useBillingAsShippingAddress', 'billingAddress', 'shippingAddress', 'paymentMethodsAchAccounts?',
      ...paymentMethodCardFields.map((f) => `paymentMethodsCards[].${f}`),
      'billingAddress.addressLine1', 'billingAddress.addressLine2', 'billingAddress.city', 'billingAddress.zip',
      'billingAddress.stateName?', 'billingAddress.stateId', 'billingAddress.countryId',
    ],
    required: ['firstName', 'lastName'],
  },
  { method: 'post', path: '/pay-api/v1/customers', where: '200', fields: ['id'], required: ['id'] },
  {
    method: 'put', path: '/pay-api/v1/customers/{customerId}', where: 'request',
    fields: [
      'firstName', 'lastName', 'companyName', 'email', 'mobilePhoneNumber', 'isMobileNumberSmsNotificationsEnabled',
      'useBillingAsShippingAddress', 'billingAddress', 'shippingAddress',
    ],
    required: ['firstName', 'lastName'],
  },
  {
    method: 'get', path: '/pay-api/v1/customers/{customerId}', where: '200',
    fields: [
      'id', 'merchantId', 'firstName?', 'lastName', 'companyName', 'email', 'mobilePhoneNumber',
      'isMobileNumberSmsNotificationsEnabled', 'useBillingAsShippingAddress', 'defaultPaymentMethodId?',
      'defaultAchPaymentMethodId?', 'createdOn', 'modifiedOn', 'billingAddress', 'shippingAddress',
      'lastTransactionDate?', 'transactionsCount', 'transactionsVolume', 'lastTransactionAmount?',
      'numberOfSubscriptions', 'cards', 'achAccounts',
      ...customerAddressRead.map((f) => `billingAddress.${f}`),
      'billingAddress.state.id', 'billingAddress.state.code', 'billingAddress.state.name',
      'billingAddress.country.id', 'billingAddress.country.isoCode', 'billingAddress.country.name',
      ...['id', 'name', 'isDefault', 'panMask', 'expirationMonth', 'expirationYear', 'cardTokenType', 'cardType',
        'creditDebitType'].map((f) => `cards[].${f}`),
      ...['id', 'name', 'isDefault', 'accountNumber', 'routingNumber', 'accountTypeId', 'accountType',
        'accountHolderTypeId', 'accountHolderType', 'taxId'].map((f) => `achAccounts[].${f}`),
    ],
  },
  {
    method: 'get', path: '/pay-api/v1/customers', where: '200',
    fields: [
      'items', 'total',
      ...['id', 'createdOn', 'modifiedOn', 'lastTransactionDate', 'lastTransactionAmount', 'activeSubscriptionsAmount',
        'contactName', 'firstName', 'lastName', 'companyName', 'email', 'mobilePhoneNumber',
        'isMobileNumberSmsNotificationsEnabled', 'billingAddress', 'paymentMethodsCount'].map((f) => `items[].${f}`),
    ],
  },
  // Payment methods
  {
    method: 'post', path: '/pay-api/v1/customers/{customerId}/payment-methods/cards', where: 'request',
    fields: ['name?', 'pan', 'expirationMonth', 'expirationYear', 'securityCode?'],
    required: ['pan', 'expirationMonth', 'expirationYear'],
  },
  {
    method: 'post', path: '/pay-api/v1/customers/{customerId}/payment-methods/ach', where: 'request',
    fields: ['accountNumber', 'routingNumber', 'accountType', 'accountHolderType', 'name', 'taxId'],
    required: ['accountNumber', 'routingNumber', 'accountType', 'accountHolderType'],
  },
  { method: 'post', path: '/pay-api/v1/customers/{customerId}/payment-methods/cards', where: '200', fields: ['id'] },
  { method: 'post', path: '/pay-api/v1/customers/{customerId}/payment-methods/ach', where: '200', fields: ['id'] },
  {
    method: 'get', path: '/pay-api/v1/customers/{customerId}/payment-methods', where: '200',
    fields: ['items', 'total', 'items[].id', 'items[].name', 'items[].panMask'],
  },
  // Configuration
  {
    method: 'get', path: '/pay-api/v1/configurations/payments', where: '200',
    fields: [
      'zeroCostProcessingOptionId', 'zeroCostProcessingOption?', 'defaultTipsOptions?', 'isTipsEnabled',
      'defaultSurchargeRate?', 'defaultCashDiscountRate?', 'defaultDualPricingRate?', 'availableCurrencies',
      'availableCardTypes', 'availableTransactionTypes', 'availablePaymentProcessors', 'avs',
      'isCustomerCardSavingByTerminalEnabled', 'companyName', 'mccCode', 'mccCodeDescription', 'currencyId',
      'currencyIsoCode', 'maxTransactionAmount?',
      'availableCurrencies[].id', 'availableCurrencies[].name', 'availableCardTypes[].id', 'availableCardTypes[].name',
      'availableTransactionTypes[].id', 'availableTransactionTypes[].name',
      ...['id', 'name', 'isDefault', 'typeId', 'type'].map((f) => `availablePaymentProcessors[].${f}`),
      ...['hours', 'minutes', 'timezoneName'].map((f) => `availablePaymentProcessors[].settlementBatchTimeSlots[].${f}`),
      'avs.isEnabled', 'avs.profileId', 'avs.profile',
    ],
  },
  {
    method: 'get', path: '/pay-api/v1/configurations/contact-infos', where: '200',
    fields: [
      'contactInfos',
      ...['id', 'addressName', 'addressLine1', 'addressLine2', 'city', 'zip', 'countryId', 'stateId', 'stateName',
        'email', 'businessPhoneNumber', 'merchantId', 'isMainAddress', 'isDefaultAddress'].map((f) => `contactInfos[].${f}`),
    ],
  },
  // Devices
  { method: 'post', path: '/pay-api/v1/devices/tap-to-pay/jwt', where: 'request', fields: ['deviceId?'] },
  { method: 'post', path: '/pay-api/v1/devices/tap-to-pay/jwt', where: '200', fields: ['jwtToken?', 'expiresAt'] },
  {
    method: 'get', path: '/pay-api/v1/devices/{deviceId}', where: '200',
    fields: [
      'deviceId', 'deviceName', 'lastLoginAt', 'apiKeyName', 'tapToPayStatus', 'tapToPayStatusId', 'tapToPayEnabled',
      'userProfiles', 'userProfiles[].id', 'userProfiles[].firstName', 'userProfiles[].lastName', 'userProfiles[].email',
    ],
  },
  // Catalogue
  {
    method: 'post', path: '/pay-int-api/categories', where: 'request', fields: ['name?', 'defaultUnitTypeId?'],
  },
  { method: 'post', path: '/pay-int-api/categories', where: '200', fields: ['id'] },
  {
    method: 'get', path: '/pay-int-api/categories', where: '200',
    fields: ['items', 'total', 'items[].name', 'items[].id', 'items[].defaultUnitTypeId?', 'items[].itemCount'],
  },
  { method: 'put', path: '/pay-int-api/categories/{categoryId}', where: 'request', fields: ['name', 'defaultUnitTypeId'] },
  {
    method: 'post', path: '/pay-int-api/line-items', where: 'request',
    fields: ['productName?', 'description?', 'sku?', 'unitPrice', 'unitTypeId', 'categoryId?', 'taxRate'],
  },
  { method: 'post', path: '/pay-int-api/line-items', where: '200', fields: ['id'] },
  {
    method: 'put', path: '/pay-int-api/line-items/{lineItemId}', where: 'request',
    fields: ['productName?', 'description?', 'sku?', 'unitPrice', 'unitTypeId', 'categoryId?', 'taxRate'],
  },
  {
    method: 'get', path: '/pay-int-api/line-items', where: '200',
    fields: [
      'items', 'total',
      ...['id', 'unitType', 'unitTypeId', 'productName', 'description', 'sku', 'unitPrice', 'categoryId', 'categoryName',
        'categoryDefaultUnitTypeId'].map((f) => `items[].${f}`),
    ],
  },
  {
    method: 'get', path: '/pay-int-api/line-items/unit-types', where: '200',
    fields: ['[].id', '[].name?', '[].abbreviation?', '[].category?'],
  },
  // Invoices
  {
    method: 'post', path: '/pay-int-api/invoices', where: 'request',
    fields: [
      ...invoiceRequestFields, ...invoiceCustomerFields.map((f) => `customer.${f}`),
      ...invoiceLineItemFields.filter((f) => f !== 'id').map((f) => `lineItems[].${f}`),
      ...['line1', 'line2', 'city', 'zip', 'countryId', 'stateId', 'stateName'].map((f) => `customer.billingAddress.${f}`),
    ],
  },
  { method: 'post', path: '/pay-int-api/invoices', where: '200', fields: ['id'] },
  { method: 'put', path: '/pay-int-api/invoices/{invoiceId}', where: 'request', fields: invoiceRequestFields },
  { method: 'post', path: '/pay-int-api/invoices/publish', where: 'request', fields: [...invoiceRequestFields, 'id?'] },
  { method: 'post', path: '/pay-int-api/invoices/publish', where: '200', fields: ['id'] },
  {
    method: 'get', path: '/pay-int-api/invoices/{invoiceId}', where: '200',
    fields: [
      'id', 'number?', 'status', 'issueDate?', 'dueDate?', 'paymentDate?', 'cardPaymentProcessorId',
      'achPaymentProcessorId?', 'additionalNotes', 'subTotalAmount', 'shippingAmount', 'totalAmount', 'taxPercentage',
      'feesPercentage', 'discountPercentage', 'surchargeAmount', 'surchargePercentage', 'cashDiscountAmount',
      'cashDiscountPercentage', 'paymentMethodTypeId?', 'merchantId', 'merchantContactInfoId', 'merchantContactInfo',
      'customerId', 'customer', 'lineItems', 'isCustomerUpdated', 'isLineItemsUpdated', 'fullUrl', 'shortUrl',
      'markedAsPaid?', 'transactionId?', 'achAllowFasterProcessing?', 'history', 'zeroCostProcessingOptionId?',
      'zeroCostProcessingOption?', 'useCardPrice?', 'invoiceCalculations',
      ...['addressLine1', 'addressLine2', 'city', 'zip', 'countryId', 'stateId', 'stateName', 'email',
        'businessPhoneNumber'].map((f) => `merchantContactInfo.${f}`),
      ...invoiceCustomerFields.map((f) => `customer.${f}`),
      ...invoiceLineItemFields.map((f) => `lineItems[].${f}`),
      ...['id', 'invoiceId', 'typeId', 'typeName', 'errorCode', 'errorMessage', 'notificationId', 'notificationType',
        'notificationTypeId', 'notificationTemplateType', 'notificationTemplateTypeId', 'notificationTarget',
        'transactionId', 'paymentMethodTypeId', 'createdOn'].map((f) => `history[].${f}`),
      ...['debitCard', 'creditCard', 'ach'].flatMap((m) => calculationFields.map((f) => `invoiceCalculations.${m}.${f}`)),
    ],
  },
  {
    method: 'get', path: '/pay-int-api/invoices', where: '200',
    fields: [
      'items', 'total',
      ...['id', 'number', 'customerName', 'issueDate', 'dueDate', 'paymentDate', 'totalAmount', 'status'].map(
        (f) => `items[].${f}`,
      ),
    ],
  },
  {
    method: 'get', path: '/pay-int-api/invoices/{invoiceId}/calculations', where: '200',
    fields: [
      'id', 'subTotalAmount', 'shippingAmount', 'taxPercentage', 'taxAmount', 'feesPercentage', 'feesAmount',
      'discountPercentage', 'discountAmount', 'surchargeAmount', 'surchargePercentage?', 'totalAmount',
    ],
  },
  {
    method: 'post', path: '/pay-int-api/invoices/{invoiceId}/submit', where: 'request',
    fields: [
      'totalAmount', 'accountNumber?', 'expirationYear', 'expirationMonth', 'securityCode?', 'billingCountryId',
      'billingPostalCode?', 'savePaymentMethod',
    ],
  },
  {
    method: 'post', path: '/pay-int-api/invoices/{invoiceId}/ach/submit', where: 'request',
    fields: [
      'routingNumber', 'accountNumber', 'accountType', 'accountHolderType', 'firstName', 'lastName', 'companyName',
      'email', 'mobilePhoneNumber', 'smsNotification?', 'addressLine1', 'addressLine2', 'city', 'stateId',
      'billingPostalCode', 'savePaymentMethod', 'authorizeBankWithdrawal', 'authorizationConsentTimestamp',
    ],
    required: ['authorizationConsentTimestamp'],
  },
  {
    method: 'post', path: '/pay-int-api/invoices/{invoiceId}/submit', where: '200',
    fields: ['success', 'paymentMethodCreated', 'customerInfoSaved'],
  },
  {
    method: 'post', path: '/pay-int-api/invoices/{invoiceId}/ach/submit', where: '200',
    fields: ['success', 'paymentMethodCreated', 'customerInfoSaved'],
  },
  { method: 'put', path: '/pay-int-api/invoices/{invoiceId}/mark-as-paid', where: 'request', fields: ['paymentMethodTypeId?'] },
  {
    method: 'post', path: '/pay-int-api/invoices/{invoiceId}/send-email-notification', where: 'request',
    fields: ['phoneNumber', 'customerConsent'],
  },
  {
    method: 'post', path: '/pay-int-api/invoices/{invoiceId}/send-published-sms-notification', where: 'request',
    fields: ['receiverEmail?', 'customerConsent'],
  },
  {
    method: 'get', path: '/pay-int-api/merchants/{merchantId}/invoices/settings', where: '200',
    fields: [
      'merchantId', 'dueDateAfterDays?', 'taxPercentage?', 'isDiscountEnabled', 'discountPercentage?',
      'isShippingFeeEnabled', 'shippingFeeAmount?', 'isFeesEnabled', 'feesPercentage?', 'notes', 'paymentMethodTypeId',
      'cardPaymentProcessorId', 'achPaymentProcessorId', 'allowStaffToSetDiscountAndLineItemDiscount',
      'allowManuallyEnterLineItems', 'isSmsNotificationAfterPaymentEnabled', 'isSmsNotificationAfterPaymentFailedEnabled',
      'canOverWriteInvoiceLineItemPrice', 'newZcpFeatureEnabled',
    ],
  },
  {
    method: 'put', path: '/pay-int-api/merchants/{merchantId}/invoices/settings', where: 'request',
    fields: [
      'dueDateAfterDays', 'taxPercentage', 'isDiscountEnabled', 'discountPercentage', 'isShippingFeeEnabled',
      'shippingFeeAmount', 'isFeesEnabled', 'feesPercentage', 'notes', 'paymentMethodTypeId?', 'cardPaymentProcessorId',
      'achPaymentProcessorId', 'allowStaffToSetDiscountAndLineItemDiscount', 'allowManuallyEnterLineItems',
      'isSmsNotificationAfterPaymentEnabled', 'isSmsNotificationAfterPaymentFailedEnabled', 'achAllowFasterProcessing',
      'canOverWriteInvoiceLineItemPrice',
    ],
  },
  // Webhooks
  {
    method: 'post', path: '/v2/webhooks/endpoints', where: 'request', fields: ['name', 'endpointUrl', 'eventTypes'],
  },
  {
    method: 'get', path: '/v2/webhooks/delivery-logs/{webhookId}', where: '200',
    fields: ['items', 'total', 'items[].nextRetryAt', 'items[].attemptNumber'],
  },
];

/** Query parameters the interface names for each list. */
export const queryParameters: readonly { method: Method; path: string; names: readonly string[] }[] = [
  {
    method: 'get', path: '/pay-api/v1/customers',
    names: ['search', 'customerIds', 'orderBy', 'asc', 'dateFrom', 'dateTo', 'page', 'pageSize'],
  },
  {
    method: 'get', path: '/pay-api/v1/customers/{customerId}/payment-methods',
    names: ['search', 'page', 'pageSize', 'orderBy', 'asc', 'dateFrom', 'dateTo'],
  },
  { method: 'get', path: '/pay-int-api/categories', names: ['page', 'pageSize', 'orderBy', 'asc', 'search'] },
  {
    method: 'get', path: '/pay-int-api/line-items',
    names: ['page', 'pageSize', 'orderBy', 'asc', 'search', 'categoryId', 'noCategory'],
  },
  {
    method: 'get', path: '/pay-int-api/invoices',
    names: [
      'issueDateFrom', 'issueDateTo', 'dueDateFrom', 'dueDateTo', 'paymentDateFrom', 'paymentDateTo', 'status', 'page',
      'pageSize', 'asc', 'search',
    ],
  },
];

/** The common pagination and search parameters the interface gives every list ("query, common"). */
export const commonQueryParameters = ['page', 'pageSize', 'orderBy', 'asc', 'search', 'dateFrom', 'dateTo'] as const;

/** Pagination defaults: page 0, pageSize 15, asc true. */
export const pagingDefaults = { page: 0, pageSize: 15, asc: true } as const;

/** The standard error body: field, type, nullable. */
export const standardErrorFields: readonly (readonly [string, string, boolean])[] = [
  ['errors', 'object', false],
  ['details', 'string', true],
  ['statusCode', 'integer', false],
  ['source', 'string', false],
  ['exceptionType', 'string', false],
  ['correlationId', 'string', false],
  ['entityId', 'string', true],
  ['errorCode', 'string', true],
];

/** The alternative 400 body (a JSON value of the wrong type). */
export const alternativeErrorFields: readonly (readonly [string, string])[] = [
  ['type', 'string'],
  ['title', 'string'],
  ['status', 'integer'],
  ['traceId', 'string'],
  ['errors', 'object'],
];

/** Rules the interface states on single fields: [method, path, where, field, keyword, value]. */
export const rules: readonly (readonly [Method, string, Where, string, string, unknown])[] = [
  ['post', '/pay-api/v1/transactions/ach/payment', 'request', 'requesterIPaddress', 'minLength', 1],
  ['post', '/pay-api/v1/transactions/ach/payment', 'request', 'requesterIPaddress', 'maxLength', 45],
  ['post', '/pay-api/v1/transactions/ach/payment', 'request', 'secCode', 'default', 1],
  ['post', '/pay-api/v1/transactions/ach/payment', 'request', 'isFasterProcessing', 'default', false],
  ['post', '/pay-api/v1/transactions/ach/payment/credit', 'request', 'requesterIPaddress', 'maxLength', 45],
  ['post', '/pay-api/v1/transactions/ach/payment/credit', 'request', 'isFasterProcessing', 'default', false],
  ['post', '/pay-api/v1/customers/{customerId}/payment-methods/cards', 'request', 'pan', 'minLength', 1],
  ['post', '/pay-api/v1/customers/{customerId}/payment-methods/ach', 'request', 'routingNumber', 'minLength', 1],
  ['post', '/pay-api/v1/customers', 'request', 'mobilePhoneNumber', 'maxLength', 20],
  ['post', '/pay-api/v1/customers', 'request', 'mobilePhoneNumber', 'pattern', '^(null|\\+\\d{1,20})$'],
  ['post', '/pay-int-api/invoices/{invoiceId}/send-email-notification', 'request', 'phoneNumber', 'maxLength', 20],
  ['post', '/pay-int-api/invoices/{invoiceId}/ach/submit', 'request', 'smsNotification', 'default', false],
];

/** Token request parameters the interface marks required. */
export const tokenRequired = {
  client_credentials: ['grant_type', 'scope'],
  password: ['grant_type', 'username', 'password', 'client_id', 'client_secret', 'scope'],
  crmRefresh: ['grant_type', 'refresh_token', 'client_id', 'client_secret'],
  response: ['access_token', 'refresh_token', 'token_type', 'expires_in'],
} as const;
