// Handlers of the "Line Items" operations. Written once by `npm run generate` as a starting point; yours to edit.
// (The generator never overwrites this file. Remove this note once the handlers are written.)
import type { LineItemsHandlers } from '../small/handlers.ts';
import type * as op from '../small/operations.ts';

export const lineItemsHandlers = {
  // (input: op.CreateLineItemInput, context: RequestContext)
  createLineItem(): Promise<op.CreateLineItemResult> {
    return Promise.reject(new Error('createLineItem: this handler is still to be written'));
  },
} satisfies LineItemsHandlers;
