// Handlers of the "default" operations. Written once by `npm run generate` as a starting point; yours to edit.
// (The generator never overwrites this file. Remove this note once the handlers are written.)
import type { DefaultHandlers } from '../small/handlers.ts';
import type * as op from '../small/operations.ts';

export const defaultHandlers = {
  // (input: op.HealthInput, context: RequestContext)
  health(): Promise<op.HealthResult> {
    return Promise.reject(new Error('health: this handler is still to be written'));
  },
} satisfies DefaultHandlers;
