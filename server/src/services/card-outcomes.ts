// What the card network answers, in the sandbox: the magic card numbers and amounts of the contract
// (generated/magic-values.ts, from spec/data/magic-values.yaml), address verification from the billing postal
// code, and the security code result. Pure functions: the card engine applies them.
import { sandboxMagicValues } from '@pgw/client/magic-values';
import { panMask } from './cards.ts';
import { type Cents, percentOf } from '../platform/money.ts';

export interface IssuerAnswer {
  /** `000` approved, `010` partially approved, a decline code, or `096`. */
  code: string;
  /** The approved amount in cents (null unless approved). */
  approvedCents: Cents | null;
}

const { cards, amounts, postalCodes, securityCode } = sandboxMagicValues;

/**
 * Magic card numbers: the response code each stands for (`010`: half approved). The approving numbers of the
 * table are not magic: with them a magic amount still acts.
 */
const MAGIC_CARDS: ReadonlyMap<string, string> = new Map(cards.values.filter((c) => c.responseCode !== '000').map((c) => [c.number, c.responseCode]));

/** Stored cards keep only their panMask, which still tells a magic number apart. */
const MAGIC_MASKS: ReadonlyMap<string, string> = new Map([...MAGIC_CARDS].map(([pan, code]) => [panMask(pan), code]));

const MAGIC_AMOUNTS: ReadonlyMap<number, string> = new Map(amounts.values.map((a) => [a.cents, a.responseCode]));

/** The security code result of a magic card that has its own (the CVV mismatch), by the card's code. */
const CVV_OF_CODE: ReadonlyMap<string, string> = new Map(cards.values.flatMap((c) => (c.cvvResult === null ? [] : [[c.responseCode, c.cvvResult] as const])));

const AVS_OF_POSTAL_CODE: ReadonlyMap<string, string> = new Map(postalCodes.values.map((p) => [p.postalCode, p.avsResult]));

/** Half of an amount, to the cent, half away from zero (the partial approval of the sandbox). */
export const halfCents = (cents: Cents): Cents => percentOf(cents, 50);

/** The code a card stands for: by its whole number (entered) or its panMask (stored). */
export const magicCodeOfCard = (card: { pan?: string; panMask: string }): string | undefined =>
  card.pan === undefined ? MAGIC_MASKS.get(card.panMask) : MAGIC_CARDS.get(card.pan);

/**
 * The issuer's answer in the sandbox, in the spec's order: the merchant's limit (102), an expired card
 * (054), the magic card, the magic amount; anything else approves. `partialAllowed` is false for a credit
 * (a refund without reference is approved or declined whole).
 */
export function issuerAnswer(input: {
  cents: Cents; limitCents: Cents | null; expired: boolean; cardCode: string | undefined; sandbox: boolean; partialAllowed: boolean;
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
  if (billing === undefined) return postalCodes.otherwise.noBillingAddress;
  const magic = AVS_OF_POSTAL_CODE.get(billing.postalCode);
  if (magic !== undefined) return magic;
  return billing.line1 !== undefined && billing.line1 !== '' ? postalCodes.otherwise.withLine1 : postalCodes.otherwise.withoutLine1;
}

/** The security code result: M when given (the magic card's own, N, for the mismatch), P without. */
export const cvvResultOf = (securityCodeGiven: boolean, cardCode: string | undefined): string =>
  (!securityCodeGiven ? securityCode.notGiven : (cardCode === undefined ? undefined : CVV_OF_CODE.get(cardCode)) ?? securityCode.given);
