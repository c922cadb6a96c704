// HTTP of the catalogue's line items and unit types.
import type { LineItemsHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { components } from '@pgw/client/types';
import type { ServerContext } from '../platform/context.ts';
import { fromCents } from '../platform/money.ts';
import type { LineItemRecord } from '../repositories/catalogue.ts';
import * as catalogue from '../services/catalogue.ts';

/** The list's shape: the record with the name of its unit type. */
function toLineItem(item: LineItemRecord): components['schemas']['CatalogueLineItem'] {
  return {
    id: item.id,
    // Every stored unit type id was checked against the list; the id stands in if the spec ever drops one.
    unitType: catalogue.unitTypeById(item.unitTypeId)?.name ?? String(item.unitTypeId),
    unitTypeId: item.unitTypeId,
    productName: item.productName,
    description: item.description,
    sku: item.sku,
    unitPrice: fromCents(item.unitPriceCents),
    categoryId: item.categoryId,
    categoryName: item.categoryName,
    categoryDefaultUnitTypeId: item.categoryDefaultUnitTypeId,
    taxRate: item.taxRate,
  };
}

export const lineItemsHandlers = {
  async listLineItems(input: op.ListLineItemsInput, context: ServerContext): Promise<op.ListLineItemsResult> {
    const { items, total } = await catalogue.listLineItems(context.merchant(), input.query);
    return { status: 200, body: { items: items.map(toLineItem), total } };
  },
  async createLineItem(input: op.CreateLineItemInput, context: ServerContext): Promise<op.CreateLineItemResult> {
    return { status: 200, body: { id: await catalogue.createLineItem(context.merchant(), input.body) } };
  },
  async updateLineItem(input: op.UpdateLineItemInput, context: ServerContext): Promise<op.UpdateLineItemResult> {
    await catalogue.updateLineItem(context.merchant(), input.path.lineItemId, input.body);
    return { status: 200 };
  },
  async deleteLineItem(input: op.DeleteLineItemInput, context: ServerContext): Promise<op.DeleteLineItemResult> {
    await catalogue.deleteLineItem(context.merchant(), input.path.lineItemId);
    return { status: 200 };
  },
  // The same list for every merchant: a partner need not name one (as the lookups).
  listUnitTypes(): Promise<op.ListUnitTypesResult> {
    return Promise.resolve({ status: 200, body: catalogue.unitTypes() });
  },
} satisfies LineItemsHandlers<ServerContext>;
