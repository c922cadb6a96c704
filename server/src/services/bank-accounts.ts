// Bank account rules: the ABA routing number check digit, the account number's form, and what is kept of
// an account number (its last four digits, and the sandbox outcome of a magic test number).

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

/**
 * The sandbox magic code of an account number `9900000000NN` (spec description, Sandbox magic values):
 * `NN` (`01` returns R01, `96` fails at submission...), or null for any other number. It is derived when
 * the account is stored, so that the whole account number need not be kept for a later ACH payment.
 */
export function magicAccountCode(accountNumber: string): string | null {
  const match = /^9900000000([0-9]{2})$/.exec(accountNumber);
  return match?.[1] ?? null;
}

export interface BankAccountInput {
  accountNumber: string;
  routingNumber: string;
  accountType: number;
  accountHolderType: number;
  name?: string | null;
  taxId?: string | null;
}

/** What is kept of a valid bank account: never the whole account number. */
export interface BankAccountToKeep {
  name: string | null;
  last4: string;
  routingNumber: string;
  accountTypeId: 1 | 2;
  accountHolderTypeId: 1 | 2;
  taxId: string | null;
  magicCode: string | null;
}

const isOneOrTwo = (v: number): v is 1 | 2 => v === 1 || v === 2;

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
  if (!isOneOrTwo(account.accountType)) add('accountType', 'must be 1 (Checking) or 2 (Savings)');
  if (!isOneOrTwo(account.accountHolderType)) add('accountHolderType', 'must be 1 (Business) or 2 (Personal)');
  if (problems > 0 || !isOneOrTwo(account.accountType) || !isOneOrTwo(account.accountHolderType)) return undefined;
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
