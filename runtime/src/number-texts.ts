// Numbers judged by the text the client wrote: a request body's number tokens that a JSON.parse double cannot
// stand for exactly (exponent notation, negative zero, more than 15 significant digits) are kept by JSON pointer,
// so a decimal rule (`multipleOf: 0.01`) refuses `4.99e25` or `1.0000000000000001` instead of reading 4.99 or 1.
import { isUtf8 } from 'node:buffer';
import { parse as parseLossless } from 'lossless-json';

/** The texts of a request's numbers that their parsed values do not carry, by JSON pointer (`/body/amount`). */
export class NumberTexts {
  constructor(readonly byPointer: ReadonlyMap<string, string>) {}
}

/**
 * A number token that may not be the double it parses to, after `:`, `,` or `[` (or at the start): exponent
 * notation, a leading `-0`, or 16 or more digits and points. Within a string the pattern may also match (`"a:1e5"`):
 * that only costs the exact reading below. Any decimal of at most 15 significant digits round-trips through a
 * double, so a body without a match is read exactly by JSON.parse.
 */
const INEXACT = /(?:^|[:,[])\s*(?:-0|-?[\d.]{16}|-?[\d.]+[eE])/;

/** A number token as written, kept by the exact reading. */
class Token {
  constructor(readonly text: string) {}
}

const escape = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

function collect(value: unknown, at: string, into: Map<string, string>): void {
  if (value instanceof Token) {
    into.set(at, value.text);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => { collect(item, `${at}/${String(i)}`, into); });
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) collect(item, `${at}/${escape(key)}`, into);
  }
}

/** Why the body's bytes are refused before parsing (not UTF-8), or undefined. */
export function bodyEncodingProblem(bytes: Buffer): string | undefined {
  return isUtf8(bytes) ? undefined : 'The request body is not valid UTF-8.';
}

/**
 * The number texts of a JSON body that JSON.parse would read inexactly; undefined when there are none (the
 * usual case: one regular-expression scan). Throws a SyntaxError when the exact reading refuses the text.
 */
export function inexactNumbers(text: string): NumberTexts | undefined {
  if (!INEXACT.test(text)) return undefined;
  const texts = new Map<string, string>();
  collect(parseLossless(text, null, (token) => new Token(token)), '', texts);
  return new NumberTexts(texts);
}

/**
 * Why a number's text breaks a decimal rule of `places` decimal places (`multipleOf: 0.01` is 2), or undefined.
 * The text must be plain decimal notation, no negative zero, at most 15 significant digits, and its value may
 * have at most `places` decimal places (trailing zeros add none: `12.500` has one).
 */
export function decimalProblem(text: string, places: number): string | undefined {
  const plain = /^-?(\d+)(?:\.(\d+))?$/.exec(text);
  const rule = `must be a plain decimal number with at most ${String(places)} decimal place${places === 1 ? '' : 's'}`;
  if (!plain) return rule;
  const whole = (plain[1] ?? '').replace(/^0+/, '');
  const fraction = (plain[2] ?? '').replace(/0+$/, '');
  if (fraction.length > places) return rule;
  if (text.startsWith('-') && whole === '' && fraction === '') return `${rule} (not negative zero)`;
  if ((whole + fraction).replace(/^0+/, '').length > 15) return `${rule} and at most 15 significant digits`;
  return undefined;
}

/** The number of decimal places a `multipleOf` stands for (0.01 -> 2), or undefined when it is not 10^-n. */
export function placesOf(multipleOf: unknown): number | undefined {
  if (typeof multipleOf !== 'number' || !(multipleOf > 0) || multipleOf > 1) return undefined;
  const places = Math.round(-Math.log10(multipleOf));
  return places >= 0 && places <= 15 && Number(`1e-${String(places)}`) === multipleOf ? places : undefined;
}
