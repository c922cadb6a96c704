import { describe, expect, it } from 'vitest';
import { cardTypeOf, checkCard, isExpired, luhnValid, panMask, panProblem, securityCodeProblem } from './cards.ts';

const now = new Date('2026-05-15T12:00:00Z');

describe('luhnValid', () => {
  it.each([
    ['4111111111111111', true],
    ['4111111111111112', false],
    ['378282246310005', true],
    ['30569309025904', true],
    ['0', true],
    ['12a4', false],
  ])('%s -> %s', (pan, want) => {
    expect(luhnValid(pan)).toBe(want);
  });
});

describe('cardTypeOf: the network by prefix and length', () => {
  it.each([
    ['4111111111111111', 1],
    ['4222222222222', 1],
    ['5555555555554444', 2],
    ['5105105105105100', 2],
    ['2221000000000009', 2],
    ['2720990000000007', 2],
    ['378282246310005', 3],
    ['371449635398431', 3],
    ['30569309025904', 4],
    ['36259600000004', 4],
    ['3800000000000006', 4],
    ['6011111111111117', 5],
    ['6445644564456445', 5],
    ['6500000000000002', 5],
    ['3530111333300000', 6],
    ['3589000000000003', 6],
  ])('%s is card type %i', (pan, type) => {
    expect(cardTypeOf(pan)).toBe(type);
  });

  it.each([
    ['41111111111111', 'Visa with 14 digits'],
    ['4111111111111111111', 'Visa with 19 digits (the spec gives 13 or 16)'],
    ['37828224631000', 'American Express with 14 digits'],
    ['5555555555554', 'Mastercard with 13 digits'],
    ['2220990000000000', 'below the 2221-2720 range'],
    ['2721000000000000', 'above the 2221-2720 range'],
    ['3060000000000000', 'Diners 306 is not a Diners prefix'],
    ['6430000000000000', '643 is not Discover'],
    ['3527000000000000', '3527 is not JCB'],
    ['9111111111111111', 'no network'],
  ])('%s has no network (%s)', (pan) => {
    expect(cardTypeOf(pan)).toBeUndefined();
  });
});

describe('panProblem', () => {
  it('accepts the sandbox cards', () => {
    for (const pan of ['4111111111111111', '4242424242424242', '5555555555554444', '5105105105105100', '378282246310005', '30569309025904',
      '6011111111111117', '3530111333300000', '4000000000000093', '4000000000000002', '4000000000000044', '4000000000009995',
      '4000000000000069', '4000000000000127', '4000000000000119']) {
      expect(panProblem(pan), pan).toBeUndefined();
    }
  });
  it('says why a number is refused, without repeating it', () => {
    expect(panProblem('4111111111111112')).toBe('fails the Luhn check');
    expect(panProblem('411111111111111')).toBe('has 15 digits; Visa card numbers have 13 or 16');
    expect(panProblem('9111111111111111')).toBe('does not match the prefix of a supported card network');
    expect(panProblem('4111-1111')).toBe('must have 12 to 19 digits and nothing else');
    expect(panProblem('4111111111111112')).not.toContain('4111');
  });
});

describe('isExpired: a card expires after the last day of its month (UTC)', () => {
  it.each([
    [5, 2026, false],
    [6, 2026, false],
    [1, 2027, false],
    [4, 2026, true],
    [12, 2025, true],
  ])('%i/%i', (month, year, want) => {
    expect(isExpired(month, year, now)).toBe(want);
  });
  it('uses UTC: 1 June 00:30 UTC is June even where it is still May', () => {
    expect(isExpired(5, 2026, new Date('2026-06-01T00:30:00Z'))).toBe(true);
    expect(isExpired(5, 2026, new Date('2026-05-31T23:59:59Z'))).toBe(false);
  });
});

describe('securityCodeProblem', () => {
  it('wants 4 digits for American Express and 3 for the others', () => {
    expect(securityCodeProblem('1234', 3)).toBeUndefined();
    expect(securityCodeProblem('123', 3)).toBe('must have 4 digits for this card');
    expect(securityCodeProblem('123', 1)).toBeUndefined();
    expect(securityCodeProblem('1234', 1)).toBe('must have 3 digits for this card');
    expect(securityCodeProblem('12a', 2)).toBe('must have 3 digits for this card');
  });
});

describe('panMask', () => {
  it('keeps the first six and the last four digits', () => {
    expect(panMask('4111111111111111')).toBe('411111******1111');
    expect(panMask('378282246310005')).toBe('378282*****0005');
    expect(panMask('4222222222222')).toBe('422222***2222');
  });
});

describe('checkCard', () => {
  it('keeps the mask, type, expiry and a token, never the number or the code', () => {
    const errors = {};
    const kept = checkCard({ name: 'Visa', pan: '4111111111111111', expirationMonth: 12, expirationYear: 2028, securityCode: '123' }, now, errors);
    expect(errors).toEqual({});
    expect(kept).toMatchObject({ name: 'Visa', panMask: '411111******1111', last4: '1111', cardType: 1, expirationMonth: 12, expirationYear: 2028 });
    expect(kept?.token).toMatch(/^tok_[A-Za-z0-9_-]{24}$/);
    expect(JSON.stringify(kept)).not.toContain('4111111111111111');
    expect(JSON.stringify(kept)).not.toContain('123"');
  });
  it('gives each problem under its prefixed field', () => {
    const errors: Record<string, string[]> = {};
    const kept = checkCard({ pan: '378282246310005', expirationMonth: 4, expirationYear: 2026, securityCode: '123' }, now, errors, 'paymentMethodsCards[1].');
    expect(kept).toBeUndefined();
    expect(errors).toEqual({
      'paymentMethodsCards[1].expirationMonth': ['the card has expired: the expiry must not be in the past'],
      'paymentMethodsCards[1].securityCode': ['must have 4 digits for this card'],
    });
  });
  it('gives each card a new token', () => {
    const card = { pan: '4111111111111111', expirationMonth: 12, expirationYear: 2030 };
    expect(checkCard(card, now, {})?.token).not.toBe(checkCard(card, now, {})?.token);
  });
});
