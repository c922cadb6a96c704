// The sandbox's magic values as the server applies them equal the spec's tables (spec/description.md,
// "Sandbox magic values"): every card number, amount and ACH account number listed there, read from the spec.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { magicAccountCode } from './bank-accounts.ts';
import { issuerAnswer, magicCodeOfCard } from './card-outcomes.ts';
import { panMask } from './cards.ts';

const description = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'spec', 'description.md'), 'utf8');
const section = /^## Sandbox magic values[^\n]*\n([\s\S]*?)(?=^## )/m.exec(description)?.[1] ?? '';
/** The data rows of the section's tables, as [first cell, the rest]. */
const rows = section.split('\n').filter((line) => line.startsWith('| `')).map((line) => {
  const cells = line.slice(1, -1).split('|').map((c) => c.trim());
  return [cells[0] ?? '', cells.slice(1).join(' | ')] as const;
});
const codes = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
const answer = (cents: number, cardCode: string | undefined): string =>
  issuerAnswer({ cents, limitCents: null, expired: false, cardCode, sandbox: true, partialAllowed: true }).code;

describe("the spec's sandbox magic values, as the server applies them", () => {
  const cards = rows.filter(([first]) => /`\d{13,19}`/.test(first) && !first.startsWith('`99'));
  const amounts = rows.filter(([first]) => /^`\d+\.\d\d`$/.test(first));
  const accounts = rows.filter(([first]) => /^`99\d{10}`$/.test(first));

  it('finds the tables', () => {
    expect([cards.length, amounts.length, accounts.length].every((n) => n >= 4)).toBe(true);
  });

  it('gives every listed card number its outcome, entered or stored', () => {
    for (const [first, outcome] of cards) {
      // The outcome's response code is its first 3-digit code (`000` for the approving networks).
      const expected = codes(outcome).find((c) => /^\d{3}$/.test(c));
      expect(expected, outcome).toBeDefined();
      for (const pan of codes(first)) {
        expect(answer(10_000, magicCodeOfCard({ pan, panMask: panMask(pan) })), pan).toBe(expected);
        expect(answer(10_000, magicCodeOfCard({ panMask: panMask(pan) })), `${pan} stored`).toBe(expected);
      }
    }
  });

  it('gives every listed amount its outcome with an approving card', () => {
    for (const [first, outcome] of amounts) {
      const cents = Math.round(Number(codes(first)[0]) * 100);
      expect(answer(cents, undefined), first).toBe(codes(outcome).find((c) => /^\d{3}$/.test(c)));
    }
  });

  it('reads every listed ACH account number as its code (returned RNN, or 96: failed at submission)', () => {
    for (const [first, outcome] of accounts) {
      const number = codes(first)[0] ?? '';
      const nn = number.slice(-2);
      expect(magicAccountCode(number), number).toBe(nn);
      // The outcome names the return code RNN, or the response code 0NN of a failure at submission.
      const named = codes(outcome).find((c) => /^(R\d\d|\d{3})$/.test(c));
      expect(named === `R${nn}` || named === `0${nn}`, `${number}: ${outcome}`).toBe(true);
    }
  });
});
