// The sandbox's magic values as the server applies them equal the contract's tables (generated/magic-values.ts,
// from spec/data/magic-values.yaml): every card number, amount, postal code and ACH account number listed there.
import { describe, expect, it } from 'vitest';
import { sandboxMagicValues } from '@pgw/client/magic-values';
import { achStateMachine } from '@pgw/client/state-machines';
import { sandboxOutcomeOf } from './ach.ts';
import type { Cents } from '../platform/money.ts';
import { magicAccountCode } from './bank-accounts.ts';
import { avsResultOf, cvvResultOf, issuerAnswer, magicCodeOfCard } from './card-outcomes.ts';
import { panMask } from './cards.ts';

/** Return codes by which the customer disputes the entry (ChargedBack): the ACH machine's chargeback row names them. */
const CHARGEBACK_CODES: ReadonlySet<string> = new Set(achStateMachine.transitions.flatMap((r) => (r.trigger === 'network.return.chargeback' ? r.returnCodes : [])));

const { cards, amounts, limit, postalCodes, securityCode, achAccounts } = sandboxMagicValues;
const answer = (cents: number, cardCode: string | undefined) =>
  issuerAnswer({ cents: cents as Cents, limitCents: null, expired: false, cardCode, sandbox: true, partialAllowed: true });

describe("the contract's sandbox magic values, as the server applies them", () => {
  it('has the tables', () => {
    expect([cards.values.length, amounts.values.length, achAccounts.values.length].every((n) => n >= 4)).toBe(true);
  });

  it('gives every listed card number its outcome, entered or stored, and its security code result', () => {
    for (const card of cards.values) {
      expect(answer(10_000, magicCodeOfCard({ pan: card.number, panMask: panMask(card.number) })).code, card.number).toBe(card.responseCode);
      const stored = magicCodeOfCard({ panMask: panMask(card.number) });
      expect(answer(10_000, stored).code, `${card.number} stored`).toBe(card.responseCode);
      expect(cvvResultOf(true, stored), card.number).toBe(card.cvvResult ?? securityCode.given);
      expect(cvvResultOf(false, stored), card.number).toBe(securityCode.notGiven);
    }
  });

  it('gives every listed amount its outcome (and approved amount) with an approving card', () => {
    for (const amount of amounts.values) {
      const got = answer(amount.cents, undefined);
      expect(got.code, String(amount.amount)).toBe(amount.responseCode);
      if (amount.approvedCents !== null) expect(got.approvedCents, String(amount.amount)).toBe(amount.approvedCents);
    }
  });

  it('answers the limit code above the merchant limit, before any magic value', () => {
    const [magic] = amounts.values;
    expect(issuerAnswer({ cents: magic.cents as Cents, limitCents: 100 as Cents, expired: false, cardCode: '005', sandbox: true, partialAllowed: true }).code).toBe(limit.responseCode);
  });

  it('gives every listed postal code its avsResult', () => {
    for (const p of postalCodes.values) expect(avsResultOf({ line1: '1 Main St', postalCode: p.postalCode }), p.postalCode).toBe(p.avsResult);
    expect(avsResultOf({ line1: '1 Main St', postalCode: '78701' })).toBe(postalCodes.otherwise.withLine1);
    expect(avsResultOf({ postalCode: '78701' })).toBe(postalCodes.otherwise.withoutLine1);
    expect(avsResultOf(undefined)).toBe(postalCodes.otherwise.noBillingAddress);
  });

  it('reads every listed ACH account number as its code and outcome (returned RNN with its status, or failed at submission)', () => {
    for (const account of achAccounts.values) {
      const code = magicAccountCode(account.accountNumber);
      expect(code, account.accountNumber).toBe(account.code);
      expect(sandboxOutcomeOf(code), account.accountNumber).toBe(account.returnCode ?? account.responseCode);
      if (account.returnCode !== null) expect(CHARGEBACK_CODES.has(account.returnCode) ? 'ChargedBack' : 'Failed', account.accountNumber).toBe(account.statusName);
    }
    // The family: every listed return code has its number; any other number is no magic account.
    for (const returnCode of achAccounts.family.returnCodes) expect(sandboxOutcomeOf(magicAccountCode(`${achAccounts.family.prefix}${returnCode.slice(1)}`))).toBe(returnCode);
    expect(magicAccountCode('000123456789')).toBeNull();
  });
});
