// The readers of spec/data's magic values and error codes: the project's data resolves to ids, and a value naming
// anything the document does not define is refused with where it is.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../model.ts';
import { Printer } from '../lib/ts.ts';
import { ERROR_CODES, readErrorCodes } from '../transform/error-codes.ts';
import { MAGIC_VALUES, readMagicValues, transformMagicValues } from '../transform/magic-values.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const bundled = JSON.parse(readFileSync(path.join(here, '..', '..', 'generated', 'src', 'openapi.json'), 'utf8')) as JsonObject;
/** The project's document with its magic values changed by `edit`. */
function edited(edit: (data: Record<string, Record<string, unknown>>) => void): JsonObject {
  const doc = structuredClone(bundled);
  edit(doc[MAGIC_VALUES] as Record<string, Record<string, unknown>>);
  return doc;
}
const firstValue = (table: Record<string, unknown> | undefined): Record<string, unknown> => ((table?.values as Record<string, unknown>[] | undefined)?.[0] ?? {});

describe('readMagicValues', () => {
  it("reads the project's data with names resolved to ids", () => {
    const model = readMagicValues(bundled);
    expect(model?.cards.values.find((c) => c.number === '4000000000000093')).toMatchObject({ cardType: 1, responseCode: '010' });
    expect(model?.amounts.values.find((a) => a.responseCode === '010')).toMatchObject({ cents: 9010, approvedCents: 4505 });
    expect(model?.achAccounts.values.find((a) => a.returnCode === 'R10')).toMatchObject({ code: '10', status: 23 });
  });

  it('is absent from a document without them', () => {
    expect(readMagicValues({ openapi: '3.1.0' })).toBeUndefined();
    expect(transformMagicValues({ openapi: '3.1.0' }, new Printer())).toBeUndefined();
  });

  it.each([
    ['an unknown response code', (d: Record<string, Record<string, unknown>>) => { firstValue(d.cards).responseCode = '999'; }, /cards: responseCode 999 is not defined/],
    ['an unknown card type', (d: Record<string, Record<string, unknown>>) => { firstValue(d.cards).cardType = 'Maestro'; }, /cards: cardType Maestro is not defined/],
    ['an unknown operation', (d: Record<string, Record<string, unknown>>) => { (d.amounts ?? {}).operations = ['payByMagic']; }, /amounts: operation payByMagic is no operationId/],
    ['an amount with three decimals', (d: Record<string, Record<string, unknown>>) => { firstValue(d.amounts).amount = 90.055; }, /more than 2 decimal places/],
    ['a return code the number does not stand for', (d: Record<string, Record<string, unknown>>) => { firstValue(d.achAccounts).returnCode = 'R02'; }, /must stand for R01/],
    ['a card listed twice', (d: Record<string, Record<string, unknown>>) => { ((d.cards ?? {}).values as unknown[]).push(firstValue(d.cards)); }, /card number 4111111111111111 is listed twice/],
  ])('refuses %s', (_name, edit, message) => {
    expect(() => readMagicValues(edited(edit))).toThrow(message);
  });
});

describe('readErrorCodes', () => {
  const codes = (list: unknown[]): JsonObject => ({ [ERROR_CODES]: { codes: list } });

  it("reads the project's codes with their statuses", () => {
    expect(readErrorCodes(bundled)?.find((c) => c.code === 'invoice_not_draft')).toMatchObject({ status: 400 });
    expect(readErrorCodes({ openapi: '3.1.0' })).toBeUndefined();
  });

  it.each([
    ['a code that is not snake_case', [{ code: 'NotFound', status: 404, meaning: 'x' }], /snake_case/],
    ['a status that is no error', [{ code: 'fine', status: 200, meaning: 'x' }], /HTTP error status/],
    ['a code listed twice', [{ code: 'a', status: 400, meaning: 'x' }, { code: 'a', status: 400, meaning: 'y' }], /listed twice/],
  ])('refuses %s', (_name, list, message) => {
    expect(() => readErrorCodes(codes(list))).toThrow(message);
  });
});
