// Whether the target keeps what it is given, asked once before the checks: a stateless mock of the spec (Prism's,
// say) answers every request in the documented shape and keeps nothing, and then most checks fail one by one. The
// run names it once, before the failures, with the evidence: a record made and not found, two makes answered
// with one id, the run's two sandbox merchants with one id.
import { OperationId } from '@pgw/client/operations';
import { CheckFailure, bodyOf, type Check } from './check.ts';
import type { Exchange } from './http.ts';

const said = (exchange: Exchange): string => (exchange.response ? String(exchange.response.status) : exchange.error ?? 'no answer');

/** The probe, run as a check of the runner (not reported): it fails with the evidence when the target keeps nothing. */
export function keepingProbe(sandboxIds: readonly string[]): Check {
  return {
    id: 'preflight/keeps_what_it_is_given', group: 'resources', designed: false, tags: [], title: 'the target keeps what it is given',
    run: async (ctx) => {
      const evidence: string[] = [];
      if (sandboxIds.length > 1 && new Set(sandboxIds).size < sandboxIds.length) evidence.push(`the run's two sandbox merchants were made with one id (${sandboxIds[0] ?? ''})`);
      if (ctx.spec.operations.has(OperationId.createCustomer) && ctx.spec.operations.has(OperationId.getCustomer)) {
        const lastName = ctx.unique('kept');
        const made = await ctx.call(OperationId.createCustomer, { body: { firstName: 'Kept', lastName } });
        const again = await ctx.call(OperationId.createCustomer, { body: { firstName: 'Kept', lastName: ctx.unique('kept') } });
        const id = bodyOf(made).id;
        if (made.response?.status === 200 && typeof id === 'string') {
          if (bodyOf(again).id === id) evidence.push(`two customers made one after the other were both answered with id ${id}`);
          const read = await ctx.call(OperationId.getCustomer, { path: { customerId: id } });
          if (read.response?.status !== 200) evidence.push(`a customer made (createCustomer answered 200, id ${id}) reads back ${said(read)} (getCustomer)`);
          else if (bodyOf(read).id !== id || bodyOf(read).lastName !== lastName) evidence.push(`a customer made with lastName ${lastName} (id ${id}) reads back as ${JSON.stringify({ id: bodyOf(read).id, lastName: bodyOf(read).lastName })}`);
        }
      }
      if (evidence.length > 0) throw new CheckFailure(evidence.join('; '));
    },
  };
}

/** The paragraph the report opens its failures with, when the probe found the target keeps nothing. */
export const keepingNote = (evidence: string): string =>
  `the target does not keep what it is given (a stateless mock?): ${evidence}. The checks that read back what they made fail for this reason; fix this first.`;
