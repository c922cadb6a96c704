// The checks call operations through the generated operationIds: every operation of the spec has one, and a
// misspelt one does not compile (`npm run typecheck` holds the @ts-expect-error below to it).
import { describe, expect, it } from 'vitest';
import { OperationId } from '@pgw/client/operations';
import type { CheckContext } from '../src/check.ts';
import { operationIdOf } from '../src/http.ts';
import { Spec } from '../src/spec.ts';

describe('calls by operationId', () => {
  const spec = Spec.load();

  it('names every operation of the spec, and only those', () => {
    expect(Object.values(OperationId).sort()).toEqual([...spec.operations.keys()].sort());
  });

  it('takes a generated operationId or an operation the spec describes, never another string', () => {
    const calls = (ctx: CheckContext): unknown[] => [
      ctx.call(OperationId.getCustomer),
      ctx.call(spec.operation('getCustomer')),
      // @ts-expect-error -- 'getCustomers' is no operationId of the spec
      ctx.call('getCustomers'),
    ];
    expect(calls).toBeTypeOf('function');
    expect([operationIdOf(OperationId.getCustomer), operationIdOf(spec.operation('getCustomer'))]).toEqual(['getCustomer', 'getCustomer']);
  });
});
