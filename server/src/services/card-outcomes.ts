// What the card network answers, in the sandbox: the magic card numbers and amounts of the spec's
// description (Sandbox magic values), address verification from the billing postal code, and the security
// code result. Pure functions: the card engine applies them.
import { panMask } from './cards.ts';

export interface IssuerAnswer {
  /** `000` approved, `010` partially approved, a decline code, or `096`. */
  code: string;
  /** The approved amount in cents (null unless approved). */
  approvedCents: number | null;
}

/** Magic card numbers: the response code each stands for (`010`: half approved). */
const MAGIC_CARDS: ReadonlyMap<string, string> = new Map([
  ['4000000000000093', '010'],
  ['4000000000000002', '005'],
  ['4000000000000044', '014'],
  ['4000000000009995', '051'],
  ['4000000000000069', '054'],
  ['4000000000000127', '082'],
  ['4000000000000119', '096'],
]);

/** Stored cards keep only their panMask, which still tells a magic number apart. */
const MAGIC_MASKS: ReadonlyMap<string, string> = new Map([...MAGIC_CARDS].map(([pan, code]) => [panMask(pan), code]));

const MAGIC_AMOUNTS: ReadonlyMap<number, string> = new Map([[9005, '005'], [9010, '010'], [9051, '051'], [9096, '096']]);

/** Half of an amount, to the cent, half away from zero (the partial approval of the sandbox). */
export const halfCents = (cents: number): number => Math.round(cents / 2);

/** The code a card stands for: by its whole number (entered) or its panMask (stored). */
export const magicCodeOfCard = (card: { pan?: string; panMask: string }): string | undefined =>
  card.pan === undefined ? MAGIC_MASKS.get(card.panMask) : MAGIC_CARDS.get(card.pan);

/**
 * The issuer's answer in the sandbox, in the spec's order: the merchant's limit (102), an expired card
 * (054), the magic card, the magic amount; anything else approves. `partialAllowed` is false for a credit
 * (a refund without reference is approved or declined whole).
 */
export function issuerAnswer(input: {
  cents: number; limitCents: number | null; expired: boolean; cardCode: string | undefined; sandbox: boolean; partialAllowed: boolean;
}): IssuerAnswer {
  if (input.limitCents !== null && input.cents > input.limitCents) return { code: '102', approvedCents: null };
  if (input.expired) return { code: '054', approvedCents: null };
  const code = input.sandbox ? (input.cardCode ?? MAGIC_AMOUNTS.get(input.cents) ?? '000') : '000';
  if (code === '010') return input.partialAllowed ? { code, approvedCents: halfCents(input.cents) } : { code: '000', approvedCents: input.cents };
  if (code === '000') return { code, approvedCents: input.cents };
  return { code, approvedCents: null };
}

/** Address verification from the billing address (the sandbox's postal codes). */
export function avsResultOf(billing: { line1?: string; postalCode: string } | undefined): string {
  if (billing === undefined) return 'U';
  if (billing.postalCode === '00000') return 'N';
  if (billing.postalCode === '11111') return 'A';
  return billing.line1 !== undefined && billing.line1 !== '' ? 'Y' : 'Z';
}

/** The security code result: M when given (N for the mismatching magic card), P without. */
export const cvvResultOf = (securityCodeGiven: boolean, cardCode: string | undefined): string =>
  (!securityCodeGiven ? 'P' : cardCode === '082' ? 'N' : 'M');
