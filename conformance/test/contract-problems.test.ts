// The rules applied to every response the suite sees, beyond its schema: error bodies' statusCode, the headers
// the spec fixes, and fields an answer's schema does not document (table-driven over the spec's operations).
import { describe, expect, it } from 'vitest';
import { contractProblems } from '../src/contract-problems.ts';
import { undocumentedFields } from '../src/documented-fields.ts';
import { Spec } from '../src/spec.ts';

const spec = Spec.load();
const fixed = [...spec.operations.values()].flatMap((op) => Object.keys(op.responses).filter((s) => /^\d+$/.test(s))
  .flatMap((status) => spec.fixedHeaders(op.operationId, Number(status)).map(([name, value]) => [op.operationId, Number(status), name, value] as const)));

describe('an error body whose statusCode is not the status', () => {
  const statuses = [400, 401, 403, 404, 405, 409, 413, 415, 422, 429];
  it.each(statuses)('%i with another statusCode is a problem; the same, or none, is not', (status) => {
    for (const other of statuses.filter((s) => s !== status)) {
      expect(contractProblems(spec, 'getCustomer', status, new Headers(), { statusCode: other, errorCode: 'x' })).toEqual([expect.stringMatching(/^error_status_code: /)]);
    }
    expect(contractProblems(spec, 'getCustomer', status, new Headers(), { statusCode: String(status) })).toHaveLength(1);
    expect(contractProblems(spec, 'getCustomer', status, new Headers(), { statusCode: status })).toEqual([]);
    expect(contractProblems(spec, undefined, status, new Headers(), { error: 'invalid_client' })).toEqual([]);
  });
});

describe('the headers the spec fixes', () => {
  it('the spec fixes Cache-Control: no-store on the token services and the answers carrying secrets', () => {
    expect(fixed.map(([op]) => op)).toEqual(expect.arrayContaining(['requestToken', 'requestCrmToken', 'createApiKey', 'createWebhookEndpoint']));
  });
  it.each(fixed)('%s %i %s: %s', (operationId, status, name, value) => {
    const problems = (header: string | undefined): string[] => contractProblems(spec, operationId, status, new Headers(header === undefined ? {} : { [name]: header }), undefined);
    expect(problems(undefined)).toHaveLength(1);
    expect(problems('no-cache')).toHaveLength(1);
    expect(problems('')).toHaveLength(1);
    expect(problems(value)).toEqual([]);
    expect(problems(`private, ${value.toUpperCase()}`)).toEqual([]);
  });
});

describe('fields an answer does not document', () => {
  const ach = { transactionId: '5b8e2f1a-3c4d-4e6f-8a9b-0c1d2e3f4a5b', typeId: 13, type: 'AchHold', statusId: 26, status: 'Held', responseDescription: 'Approved', responseCode: '000' };
  it.each(['holdAchTransaction', 'unholdAchTransaction', 'voidAchTransaction'])('%s: processedAmount is not documented there', (op) => {
    expect(undocumentedFields(spec, op, 200, ach)).toEqual([]);
    expect(undocumentedFields(spec, op, 200, { ...ach, processedAmount: 0 })).toEqual(['body.processedAmount']);
  });
  it('createAchDebit documents processedAmount', () => {
    expect(undocumentedFields(spec, 'createAchDebit', 200, { ...ach, processedAmount: 1 })).toEqual([]);
  });
  it('a key list item with its secret, nested in an array', () => {
    const key = { clientId: 'pgw_ck_1', name: 'k', createdOn: '2025-01-01T00:00:00Z', lastUsedAt: null, isActive: true };
    expect(undocumentedFields(spec, 'listApiKeys', 200, { items: [key], total: 1 })).toEqual([]);
    expect(undocumentedFields(spec, 'listApiKeys', 200, { items: [key, { ...key, clientSecret: 's' }], total: 2 })).toEqual(['body.items[1].clientSecret']);
  });
  it("an error body's errors map is open (any field name)", () => {
    expect(undocumentedFields(spec, 'createCustomer', 400, { errors: { anyField: ['x'] }, statusCode: 400 })).toEqual([]);
  });
});
