// The error registry and the spec's error codes (generated/error-codes.ts, from spec/data/error-codes.yaml) list
// the same codes, but for the codes of operations this server does not serve yet.
import { describe, expect, it } from 'vitest';
import { errorCodeTable } from '@pgw/client/error-codes';
import { ApiError, errorCodes } from './errors.ts';

/** Codes the spec documents for operations this server does not serve yet (none today). */
const NOT_SERVED_YET: string[] = [];
/** Codes the registry needs that are not errors of the API's operations (server-side states). */
const SERVER_ONLY: string[] = [];

const documented: readonly { code: string; status: number }[] = errorCodeTable;

describe('the error registry', () => {
  it('documents every code it answers with, at the status the spec gives', () => {
    for (const code of errorCodes.filter((c) => !SERVER_ONLY.includes(c))) {
      const row = documented.find((d) => d.code === code);
      expect(row, `${code} is missing from the spec's error-code table`).toBeDefined();
      expect(new ApiError(code).status, code).toBe(row?.status);
    }
  });

  it('answers with every documented code, but those of operations not served yet', () => {
    const missing = documented.map((d) => d.code).filter((c) => !(errorCodes as string[]).includes(c));
    expect(missing.sort()).toEqual([...NOT_SERVED_YET].sort());
  });

  it('renders the standard body, with no details on a fault', () => {
    const body = new ApiError('internal_error', { details: 'secret' }).toResponse('6f1c2a4e-9b7d-4c1e-8f3a-2d5e7b9c0a14');
    expect(body).toMatchObject({ details: null, statusCode: 500, errorCode: 'internal_error', exceptionType: 'InternalServerException' });
  });
});
