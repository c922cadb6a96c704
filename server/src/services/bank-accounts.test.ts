import { describe, expect, it } from 'vitest';
import { abaValid, accountNumberValid, checkBankAccount, magicAccountCode, maskAccountNumber } from './bank-accounts.ts';

describe('abaValid: the 3-7-1 check digit', () => {
  it.each([
    ['021000021', true],
    ['011000015', true],
    ['122105155', true],
    ['021000022', false],
    ['123456789', false],
    ['02100002', false],
    ['02100002a', false],
  ])('%s -> %s', (routing, want) => {
    expect(abaValid(routing)).toBe(want);
  });
});

describe('accountNumberValid', () => {
  it('takes 4 to 17 digits', () => {
    expect(accountNumberValid('1234')).toBe(true);
    expect(accountNumberValid('12345678901234567')).toBe(true);
    expect(accountNumberValid('123')).toBe(false);
    expect(accountNumberValid('123456789012345678')).toBe(false);
    expect(accountNumberValid('1234-5678')).toBe(false);
  });
});

describe('magicAccountCode', () => {
  it('is NN of 9900000000NN, else null', () => {
    expect(magicAccountCode('990000000001')).toBe('01');
    expect(magicAccountCode('990000000096')).toBe('96');
    expect(magicAccountCode('990000000029')).toBe('29');
    expect(magicAccountCode('000123456789')).toBeNull();
    expect(magicAccountCode('9900000000001')).toBeNull();
  });
});

describe('checkBankAccount', () => {
  it('keeps the last four digits, never the account number', () => {
    const errors = {};
    const kept = checkBankAccount({ accountNumber: '000123456789', routingNumber: '021000021', accountType: 1, accountHolderType: 2, name: 'Ops' }, errors);
    expect(errors).toEqual({});
    expect(kept).toEqual({ name: 'Ops', last4: '6789', routingNumber: '021000021', accountTypeId: 1, accountHolderTypeId: 2, taxId: null, magicCode: null });
    expect(maskAccountNumber('6789')).toBe('****6789');
  });
  it('keeps the magic code of a sandbox test number', () => {
    expect(checkBankAccount({ accountNumber: '990000000010', routingNumber: '021000021', accountType: 1, accountHolderType: 1 }, {})?.magicCode).toBe('10');
  });
  it('gives each problem under its prefixed field', () => {
    const errors: Record<string, string[]> = {};
    expect(checkBankAccount({ accountNumber: '12', routingNumber: '021000022', accountType: 3, accountHolderType: 1 }, errors, 'paymentMethodsAchAccounts[0].')).toBeUndefined();
    expect(errors).toEqual({
      'paymentMethodsAchAccounts[0].accountNumber': ['must have 4 to 17 digits and nothing else'],
      'paymentMethodsAchAccounts[0].routingNumber': ['fails the ABA check digit'],
      'paymentMethodsAchAccounts[0].accountType': ['must be 1 (Checking) or 2 (Savings)'],
    });
  });
});
