// Handlers of the "Loans" operations. Written once by `npm run generate` as a starting point; yours to edit.
// (The generator never overwrites this file. Remove this note once the handlers are written.)
import type { LoansHandlers } from '../library/handlers.ts';
import type * as op from '../library/operations.ts';

export const loansHandlers = {
  // (input: op.OpenLoanInput, context: RequestContext)
  openLoan(): Promise<op.OpenLoanResult> {
    return Promise.reject(new Error('openLoan: this handler is still to be written'));
  },
  // (input: op.ChangeLoanInput, context: RequestContext)
  changeLoan(): Promise<op.ChangeLoanResult> {
    return Promise.reject(new Error('changeLoan: this handler is still to be written'));
  },
} satisfies LoansHandlers;
