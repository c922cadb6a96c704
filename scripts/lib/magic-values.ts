// The tables of the description's "Sandbox magic values" section, as Markdown, from the document's magic values
// (spec/data/magic-values.yaml); description-data.ts puts them in place.
import type { MagicAchAccount, MagicValuesModel } from '../../generator/transform/magic-values.ts';

const code = (text: string): string => `\`${text}\``;
const cell = (text: string): string => text.replaceAll('|', '\\|');
const appliesTo = (operations: readonly string[]): string => `Applies to ${operations.map(code).join(', ')}.`;
/** `AmericanExpress` -> `American Express`. */
const spaced = (name: string): string => name.replace(/([a-z])([A-Z])/g, '$1 $2');

function achOutcome(account: MagicAchAccount): string {
  const status = `${account.statusName} (${String(account.status)})`;
  return account.returnCode !== null
    ? `${account.outcome} with ${code(account.returnCode)}: ${status}`
    : `${account.outcome}: ${status}, ${code('responseCode')} ${code(account.responseCode ?? '')}`;
}

/** The section's tables and sentences, as Markdown. */
export function magicValuesMarkdown(model: MagicValuesModel): string {
  const { cards, amounts, limit, postalCodes, securityCode, achAccounts } = model;
  // Consecutive numbers with the same network and outcome share a row.
  const cardRows: { numbers: string[]; network: string; outcome: string }[] = [];
  for (const card of cards.values) {
    const network = `${spaced(card.cardTypeName)} (${String(card.cardType)})`;
    const outcome = `${code(card.responseCode)} ${card.outcome}`;
    const last = cardRows.at(-1);
    if (last !== undefined && last.network === network && last.outcome === outcome) last.numbers.push(card.number);
    else cardRows.push({ numbers: [card.number], network, outcome });
  }
  const mismatches = cards.values.filter((c) => c.cvvResult !== null).map((c) => `${code(c.cvvResult ?? '')} for card ${code(c.number)}`);
  return [
    `In the sandbox these values trigger outcomes; production ignores them. ${cards.note}`,
    '',
    `| ${cards.title} | Network (cardType) | Outcome |`,
    '|---|---|---|',
    ...cardRows.map((r) => `| ${r.numbers.map(code).join(', ')} | ${r.network} | ${cell(r.outcome)} |`),
    '',
    appliesTo(cards.operations),
    '',
    `| ${amounts.title} | Outcome |`,
    '|---|---|',
    ...amounts.values.map((a) => `| ${code(a.amount.toFixed(2))} | ${code(a.responseCode)} ${cell(a.outcome)} |`),
    '',
    `${amounts.note} ${appliesTo(amounts.operations)}`,
    '',
    `An amount above the merchant's ${code(limit.field)} answers ${code(limit.responseCode)}: ${limit.outcome}. ${appliesTo(limit.operations)}`,
    '',
    `| ${postalCodes.title} | avsResult |`,
    '|---|---|',
    ...postalCodes.values.map((p) => `| ${code(p.postalCode)} | ${code(p.avsResult)} (${cell(p.outcome)}) |`),
    `| any other, with ${code('line1')} | ${code(postalCodes.otherwise.withLine1)} |`,
    `| any other, without ${code('line1')} | ${code(postalCodes.otherwise.withoutLine1)} |`,
    `| no billing address | ${code(postalCodes.otherwise.noBillingAddress)} |`,
    '',
    `${code('cvvResult')} is ${code(securityCode.given)} when a security code is given${mismatches.length > 0 ? ` (${mismatches.join(', ')})` : ''} and ${code(securityCode.notGiven)} without one.`,
    '',
    `${achAccounts.note} ${appliesTo(achAccounts.operations)}`,
    '',
    `| ${achAccounts.title} | Outcome |`,
    '|---|---|',
    ...achAccounts.values.map((a) => `| ${code(a.accountNumber)} | ${cell(achOutcome(a))} |`),
    `| ${code(`${achAccounts.family.prefix}${'N'.repeat(achAccounts.family.digits)}`)} | ${cell(achAccounts.family.outcome)} |`,
    `| any other | ${cell(achAccounts.otherwise.outcome)}: ${achAccounts.otherwise.statusName} (${String(achAccounts.otherwise.status)}) |`,
  ].join('\n');
}
