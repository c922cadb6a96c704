// Bank account rules: the ABA routing number check digit, the account number's form, and what is kept of
// an account number (its last four digits, and the sandbox outcome of a magic test number).
import { AccountHolderType, AccountType } from '@pgw/client/enums';
import { sandboxMagicValues } from '@pgw/client/magic-values';
import type { BankAccountToKeep } from '../repositories/payment-methods.ts';

export type { BankAccountToKeep };

/** ABA check: 3·(d1+d4+d7) + 7·(d2+d5+d8) + 1·(d3+d6+d9) is a multiple of 10. */
export function abaValid(routingNumber: string): boolean {
  if (!/^[0-9]{9}$/.test(routingNumber)) return false;
  const weights = [3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(routingNumber[i]) * (weights[i % 3] ?? 0);
  return sum % 10 === 0;
}

export const accountNumberValid = (accountNumber: string): boolean => /^[0-9]{4,17}$/.test(accountNumber);

/** The shown form of an account number: `****` and its last four digits. */
export const maskAccountNumber = (last4: string): string => `****${last4}`;

const { family } = sandboxMagicValues.achAccounts;
const MAGIC_ACCOUNT = new RegExp(`^${family.prefix}([0-9]{${String(family.digits)}})$`);

/**
 * The sandbox magic code of an account number of the contract's family (`9900000000NN`, generated from
 * spec/data/magic-values.yaml): `NN` (`01` returns R01, `96` fails at submission...), or null for any other
 * number. It is derived when the account is stored, so that the whole account number need not be kept for a
 * later ACH payment.
 */
export function magicAccountCode(accountNumber: string): string | null {
  return MAGIC_ACCOUNT.exec(accountNumber)?.[1] ?? null;
}

export interface BankAccountInput {
  accountNumber: string;
  routingNumber: string;
  accountType: number;
  accountHolderType: number;
  name?: string | null;
  taxId?: string | null;
}


const isAccountType = (v: number): v is AccountType => Object.values<number>(AccountType).includes(v);
const isHolderType = (v: number): v is AccountHolderType => Object.values<number>(AccountHolderType).includes(v);

/** Checks a bank account body; problems go into `errors` under `prefix + field`. */
export function checkBankAccount(account: BankAccountInput, errors: Record<string, string[]>, prefix = ''): BankAccountToKeep | undefined {
  let problems = 0;
  const add = (field: string, message: string): void => {
    problems += 1;
    (errors[`${prefix}${field}`] ??= []).push(message);
  };
  if (!accountNumberValid(account.accountNumber)) add('accountNumber', 'must have 4 to 17 digits and nothing else');
  if (!/^[0-9]{9}$/.test(account.routingNumber)) add('routingNumber', 'must have 9 digits');
  else if (!abaValid(account.routingNumber)) add('routingNumber', 'fails the ABA check digit');
  if (!isAccountType(account.accountType)) add('accountType', 'must be 1 (Checking) or 2 (Savings)');
  if (!isHolderType(account.accountHolderType)) add('accountHolderType', 'must be 1 (Business) or 2 (Personal)');
  if (problems > 0 || !isAccountType(account.accountType) || !isHolderType(account.accountHolderType)) return undefined;
  return {
    name: account.name ?? null,
    last4: account.accountNumber.slice(-4),
    routingNumber: account.routingNumber,
    accountTypeId: account.accountType,
    accountHolderTypeId: account.accountHolderType,
    taxId: account.taxId ?? null,
    magicCode: magicAccountCode(account.accountNumber),
  };
}
