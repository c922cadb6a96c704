// The sandbox issuer: order of the rules (limit, expiry, magic card, magic amount), partial approvals,
// AVS and CVV results, and magic cards recognised by their panMask once stored.
import { describe, expect, it } from 'vitest';
import type { Cents } from '../platform/money.ts';
import { avsResultOf, cvvResultOf, halfCents, issuerAnswer, magicCodeOfCard } from './card-outcomes.ts';
import { panMask } from './cards.ts';

/** The table's amounts as cents. */
const cents = (value: number): Cents => value as Cents;

const base = { cents: 5000, limitCents: null, expired: false, cardCode: undefined, sandbox: true, partialAllowed: true };

describe('issuerAnswer', () => {
  it.each([
    ['approves an ordinary card', base, '000', 5000],
    ['declines above the limit first (102), before a magic amount', { ...base, cents: 9005, limitCents: 9000 }, '102', null],
    ['declines an expired card (054) before a magic card', { ...base, expired: true, cardCode: '005' }, '054', null],
    ['takes the magic card over the magic amount', { ...base, cents: 9005, cardCode: '051' }, '051', null],
    ['declines on a magic amount', { ...base, cents: 9051 }, '051', null],
    ['fails on 90.96', { ...base, cents: 9096 }, '096', null],
    ['half-approves 90.10 (45.05)', { ...base, cents: 9010 }, '010', 4505],
    ['half-approves the partial magic card, half away from zero', { ...base, cents: 10001, cardCode: '010' }, '010', 5001],
    ['approves a credit whole where a partial approval would be', { ...base, cents: 9010, partialAllowed: false }, '000', 9010],
    ['ignores magic values outside the sandbox', { ...base, cents: 9005, cardCode: '005', sandbox: false }, '000', 9005],
  ])('%s', (_name, input, code, approved) => {
    expect(issuerAnswer({ ...input, cents: cents(input.cents), limitCents: input.limitCents === null ? null : cents(input.limitCents) })).toEqual({ code, approvedCents: approved });
  });

  it('rounds half of an odd cent away from zero', () => {
    expect(halfCents(cents(1))).toBe(1);
    expect(halfCents(cents(9010))).toBe(4505);
  });
});

describe('magic cards', () => {
  it('are known by number when entered and by panMask when stored', () => {
    expect(magicCodeOfCard({ pan: '4000000000000002', panMask: panMask('4000000000000002') })).toBe('005');
    expect(magicCodeOfCard({ panMask: panMask('4000000000009995') })).toBe('051');
    expect(magicCodeOfCard({ pan: '4111111111111111', panMask: panMask('4111111111111111') })).toBeUndefined();
  });
});

describe('AVS and CVV', () => {
  it.each([
    [undefined, 'U'], [{ postalCode: '00000', line1: 'x' }, 'N'], [{ postalCode: '11111', line1: 'x' }, 'A'],
    [{ postalCode: '78701', line1: '100 Congress Ave' }, 'Y'], [{ postalCode: '78701' }, 'Z'],
  ])('billing %j gives %s', (billing, want) => {
    expect(avsResultOf(billing)).toBe(want);
  });
  it('gives M with a code, N for the mismatch card, P without a code', () => {
    expect(cvvResultOf(true, undefined)).toBe('M');
    expect(cvvResultOf(true, '082')).toBe('N');
    expect(cvvResultOf(false, '082')).toBe('P');
  });
});
