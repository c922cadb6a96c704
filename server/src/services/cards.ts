// Card rules: Luhn, the network by prefix and length, expiry, security code, and what may be kept of a
// card (the panMask and a token). The whole number and the security code never leave this request.
import { randomBytes } from 'node:crypto';
import { CardType as CardTypes, CreditDebitType } from '@pgw/client/enums';
import type { CardToKeep, CardType } from '../repositories/payment-methods.ts';

export type { CardToKeep, CardType };

export const AMERICAN_EXPRESS: CardType = CardTypes.AmericanExpress;

interface Network {
  type: CardType;
  /** Inclusive ranges of leading digits; each bound has as many digits as the prefix it matches. */
  prefixes: readonly (readonly [string, string])[];
  lengths: readonly number[];
  name: string;
}

// The spec's table (CardPaymentMethodCreateRequest.pan): checked in this order, longest prefixes first
// where networks share a leading digit.
const NETWORKS: readonly Network[] = [
  { type: CardTypes.Jcb, name: 'JCB', prefixes: [['3528', '3589']], lengths: [16] },
  { type: CardTypes.AmericanExpress, name: 'American Express', prefixes: [['34', '34'], ['37', '37']], lengths: [15] },
  { type: CardTypes.DinersClub, name: 'Diners Club', prefixes: [['300', '305'], ['36', '36'], ['38', '39']], lengths: [14, 16] },
  { type: CardTypes.Discover, name: 'Discover', prefixes: [['6011', '6011'], ['644', '649'], ['65', '65']], lengths: [16] },
  { type: CardTypes.Mastercard, name: 'Mastercard', prefixes: [['51', '55'], ['2221', '2720']], lengths: [16] },
  { type: CardTypes.Visa, name: 'Visa', prefixes: [['4', '4']], lengths: [13, 16] },
];

export function luhnValid(digits: string): boolean {
  if (!/^[0-9]+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const networkByPrefix = (pan: string): Network | undefined =>
  NETWORKS.find((n) => n.prefixes.some(([low, high]) => {
    const head = pan.slice(0, low.length);
    return head.length === low.length && head >= low && head <= high;
  }));

/** The network of a card number (prefix and length both match), or undefined. */
export function cardTypeOf(pan: string): CardType | undefined {
  const network = networkByPrefix(pan);
  return network?.lengths.includes(pan.length) ? network.type : undefined;
}

/** Why a card number is refused, or undefined when it is acceptable. The message never repeats the number. */
export function panProblem(pan: string): string | undefined {
  if (!/^[0-9]{12,19}$/.test(pan)) return 'must have 12 to 19 digits and nothing else';
  const network = networkByPrefix(pan);
  if (!network) return 'does not match the prefix of a supported card network';
  if (!network.lengths.includes(pan.length)) {
    return `has ${pan.length} digits; ${network.name} card numbers have ${network.lengths.join(' or ')}`;
  }
  if (!luhnValid(pan)) return 'fails the Luhn check';
  return undefined;
}

/** A card expires after the last day of its month (UTC). */
export function isExpired(month: number, year: number, now: Date): boolean {
  const currentYear = now.getUTCFullYear();
  const currentMonth = now.getUTCMonth() + 1;
  return year < currentYear || (year === currentYear && month < currentMonth);
}

/** Why a security code is refused for this card type, or undefined. */
export function securityCodeProblem(code: string, cardType: CardType | undefined): string | undefined {
  const length = cardType === AMERICAN_EXPRESS ? 4 : 3;
  return new RegExp(`^[0-9]{${String(length)}}$`).test(code) ? undefined : `must have ${length} digits for this card`;
}

/** The kept form of a card number: the first six and the last four digits, `*` between. */
export function panMask(pan: string): string {
  return `${pan.slice(0, 6)}${'*'.repeat(Math.max(pan.length - 10, 0))}${pan.slice(-4)}`;
}

/**
 * Credit or debit (CreditDebitType). The sandbox has no BIN table: as the invoice rules say, cards count as
 * credit (1) unless a magic card number says otherwise, and no magic number is a debit card today.
 */
export const creditDebitTypeOf = (pan: string): CreditDebitType => (cardTypeOf(pan) === undefined ? CreditDebitType.Unknown : CreditDebitType.Credit);

/** A reference to the card in the gateway's vault (cardTokenType 1, GatewayToken): random, never the number. */
export const newCardToken = (): string => `tok_${randomBytes(18).toString('base64url')}`;

export interface CardInput {
  name?: string | null;
  pan: string;
  expirationMonth: number;
  expirationYear: number;
  securityCode?: string | null;
}


/**
 * Checks a card body; problems go into `errors` under `prefix + field` (`paymentMethodsCards[0].pan`).
 * Returns what may be kept of the card when it is valid. The security code is checked and dropped.
 */
export function checkCard(card: CardInput, now: Date, errors: Record<string, string[]>, prefix = ''): CardToKeep | undefined {
  let problems = 0;
  const add = (field: string, message: string): void => {
    problems += 1;
    (errors[`${prefix}${field}`] ??= []).push(message);
  };
  const problem = panProblem(card.pan);
  if (problem) add('pan', problem);
  if (!Number.isInteger(card.expirationMonth) || card.expirationMonth < 1 || card.expirationMonth > 12) {
    add('expirationMonth', 'must be 1 to 12');
  } else if (isExpired(card.expirationMonth, card.expirationYear, now)) {
    add('expirationMonth', 'the card has expired: the expiry must not be in the past');
  }
  const cardType = cardTypeOf(card.pan);
  if (card.securityCode !== undefined && card.securityCode !== null) {
    const codeProblem = securityCodeProblem(card.securityCode, cardType);
    if (codeProblem) add('securityCode', codeProblem);
  }
  if (problems > 0 || cardType === undefined) return undefined;
  return {
    name: card.name ?? null,
    panMask: panMask(card.pan),
    last4: card.pan.slice(-4),
    cardType,
    creditDebitType: creditDebitTypeOf(card.pan),
    expirationMonth: card.expirationMonth,
    expirationYear: card.expirationYear,
    token: newCardToken(),
  };
}
