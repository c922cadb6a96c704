// The records the checks create, per resource family of the spec: which operations create, read, update,
// delete and list them, how to make a valid body (with a marker the checks can search for), and which
// field is required and which is a number (for the error checks).
import { OperationId } from '@pgw/client/operations';
import type { CheckContext } from './check.ts';

export interface Resource {
  readonly name: string;
  readonly tag: string;
  readonly create: OperationId;
  readonly read?: OperationId;
  readonly update?: OperationId;
  readonly delete?: OperationId;
  readonly list?: { operation: OperationId; searchable: string; orderBy: string; orderField: string };
  /** The path parameter that addresses one record. */
  readonly idParam: string;
  /** A valid create (and update) body carrying `marker` in a searchable field. */
  body(ctx: CheckContext, marker: string): Record<string, unknown>;
  /** A field the create body must have (spec: required). */
  readonly requiredField: string;
  /** A field whose JSON type is number or integer. */
  readonly numberField?: string;
}

const address = { addressLine1: '1 Main St', addressLine2: 'Suite 2', city: 'Springfield', zip: '62701', stateName: 'Illinois', stateId: 15, countryId: 1 };

export const resources: readonly Resource[] = [
  {
    name: 'customer', tag: 'Customers', create: OperationId.createCustomer, read: OperationId.getCustomer, update: OperationId.updateCustomer, delete: OperationId.deleteCustomer,
    list: { operation: OperationId.searchCustomers, searchable: 'lastName', orderBy: 'lastName', orderField: 'lastName' },
    idParam: 'customerId', requiredField: 'lastName',
    body: (ctx, marker) => ({
      firstName: 'Conformance', lastName: marker, companyName: 'Check Co', email: `${ctx.unique('c').toLowerCase()}@example.com`,
      mobilePhoneNumber: '+15555550123', isMobileNumberSmsNotificationsEnabled: false, useBillingAsShippingAddress: true,
      billingAddress: address, shippingAddress: address,
    }),
  },
  {
    name: 'category', tag: 'Categories', create: OperationId.createCategory, update: OperationId.updateCategory, delete: OperationId.deleteCategory,
    list: { operation: OperationId.listCategories, searchable: 'name', orderBy: 'name', orderField: 'name' },
    idParam: 'categoryId', requiredField: 'name', numberField: 'defaultUnitTypeId',
    body: (_ctx, marker) => ({ name: marker, defaultUnitTypeId: 1 }),
  },
  {
    name: 'line item', tag: 'Line Items', create: OperationId.createLineItem, update: OperationId.updateLineItem, delete: OperationId.deleteLineItem,
    list: { operation: OperationId.listLineItems, searchable: 'productName', orderBy: 'productName', orderField: 'productName' },
    idParam: 'lineItemId', requiredField: 'unitPrice', numberField: 'unitPrice',
    body: (ctx, marker) => ({ productName: marker, description: 'A conformance item', sku: ctx.unique('SKU'), unitPrice: 12.5, unitTypeId: 1, categoryId: null, taxRate: 0 }),
  },
];

/** Markers sort in the order they are made, and are unique to the run. */
export function markers(ctx: CheckContext, count: number): string[] {
  const stem = ctx.unique('pgwc');
  return Array.from({ length: count }, (_, i) => `${stem}-${String(i).padStart(3, '0')}`);
}
