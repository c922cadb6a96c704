// Contract rules of the state machines (x-state-machine): the generator accepts every table (statuses,
// triggers, events, codes and types all defined), every command of the ACH, card, terminal and payment-link operations is
// a trigger of its machine and belongs to its tag (or is a sandbox control, which stands in for the world), and
// every operation-triggered row of the invoice machine names an invoice operation. Mutations show each rule catches its kind of bad table.
import { describe, expect, it } from 'vitest';
import { readStateMachines } from '../../generator/transform/state-machines.ts';
import { loadBundle } from './bundled.ts';
import type { JsonObject } from './faithfulness.ts';

const asObject = (v: unknown): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {});

/** Operation id -> its tag and method, for every operation of the document. */
function operationTags(doc: JsonObject): Map<string, { tag: string; method: string }> {
  const tags = new Map<string, { tag: string; method: string }>();
  for (const [, item] of Object.entries(asObject(doc.paths))) {
    for (const [method, op] of Object.entries(asObject(item))) {
      const operation = asObject(op);
      if (typeof operation.operationId === 'string' && ['get', 'post', 'put', 'patch', 'delete'].includes(method)) {
        tags.set(operation.operationId, { tag: (operation.tags as string[] | undefined)?.[0] ?? '', method });
      }
    }
  }
  return tags;
}

const MACHINE_TAGS: Record<string, string> = { ach: 'ACH Payments', card: 'Card Payments', invoice: 'Invoices', terminalPaper: 'Terminals', quickPayment: 'Quick Payments', subscription: 'Subscriptions' };
/** The tag of the sandbox controls, which may trigger any machine: they stand in for what the world does (a terminal's report). */
const SANDBOX_TAG = 'Sandbox';
/** Operations of those tags that are not GETs and still change no status, and so need be no trigger. */
const NON_GET_READS = new Set(['updateInvoiceSettings', 'updateSubscriptionSettings']);
/** A read: a GET, or one of NON_GET_READS (a GET may still be a trigger, as downloadInvoicePdf is). */
const isRead = (operationId: string, method: string): boolean => method === 'get' || NON_GET_READS.has(operationId);

/** The rule violations of a document's state machines (empty: it keeps the rules). */
function problems(doc: JsonObject): string[] {
  const found: string[] = [];
  let machines;
  try {
    machines = readStateMachines(doc);
  } catch (error) {
    return [(error as Error).message];
  }
  const tags = operationTags(doc);
  for (const name of Object.keys(MACHINE_TAGS)) if (!machines.some((m) => m.name === name)) found.push(`no ${name} state machine`);
  for (const machine of machines) {
    const tag = MACHINE_TAGS[machine.name];
    const triggers = new Set(machine.rows.map((r) => r.trigger));
    // A machine of a tag's resource takes every command of the tag; one without (webhook deliveries, whose tag
    // also holds the webhooks' own operations) only checks that its triggers name operations of the document.
    for (const trigger of tag === undefined ? [] : triggers) {
      const operationTag = tags.get(trigger)?.tag;
      if (operationTag !== undefined && operationTag !== tag && operationTag !== SANDBOX_TAG) found.push(`${machine.name}: trigger ${trigger} is an operation of ${operationTag}, not ${String(tag)}`);
    }
    for (const [operationId, operation] of tag === undefined ? [] : tags) {
      if (operation.tag === tag && !isRead(operationId, operation.method) && !triggers.has(operationId)) found.push(`${machine.name}: the ${tag} operation ${operationId} is no trigger`);
    }
    // Return codes pick a row among a status's return triggers: each code of the enumeration exactly once per
    // status, and the enumeration's table of what a code leads to says the same as the rows.
    const returning = machine.rows.filter((r) => r.returnCodes !== null);
    const returnSchema = asObject(asObject(asObject(doc.components).schemas).AchReturnCode);
    const allCodes = ((returnSchema.enum ?? []) as unknown[]).map(String);
    const statusName = new Map(machine.statuses.map(([name, id]) => [id, name]));
    for (const from of new Set(returning.map((r) => r.from))) {
      for (const code of allCodes) {
        const rows = returning.filter((r) => r.from === from && (r.returnCodes ?? []).includes(code));
        if (rows.length !== 1) found.push(`${machine.name}: return code ${code} picks ${String(rows.length)} rows from ${String(from)}`);
        const said = new RegExp(`\\| \`${code}\` \\|[^|]*\\| (\\w+) `).exec(String(returnSchema.description))?.[1];
        const to = rows[0]?.to;
        if (rows.length === 1 && to !== undefined && said !== statusName.get(to)) found.push(`${machine.name}: AchReturnCode's table says ${code} leads to ${String(said)}, its row to ${String(statusName.get(to))}`);
      }
    }
    if (machine.refusal.kind === 'errorCode') {
      const codes = asObject(machine.refusal.errorCodes);
      // An operation that acts on an existing record can be refused; a pure creation cannot.
      const onRecords = new Set(machine.rows.filter((r) => r.from !== null).map((r) => r.trigger));
      for (const trigger of onRecords) if (tags.has(trigger) && !(trigger in codes)) found.push(`${machine.name}: ${trigger} has no refusal errorCode`);
    }
  }
  return found;
}

const machineOf = (doc: JsonObject, schema: string): JsonObject => asObject(asObject(asObject(asObject(doc.components).schemas)[schema])['x-state-machine']);
const transitionsOf = (doc: JsonObject, schema: string): JsonObject[] => machineOf(doc, schema).transitions as JsonObject[];

describe('the state machines of the spec', () => {
  it('keep every rule', () => {
    expect(problems(loadBundle())).toEqual([]);
  });

  const mutations: [string, (doc: JsonObject) => void, RegExp][] = [
    ['a row without provenance', (doc) => { delete transitionsOf(doc, 'AchTransactionStatus')[0]?.provenance; }, /has no provenance/],
    ['an event the spec does not define', (doc) => { const row = transitionsOf(doc, 'CardTransactionStatus')[0]; if (row) row.event = 'payment.card.teleported'; }, /is no webhook/],
    ['a status of another enumeration', (doc) => { const row = transitionsOf(doc, 'InvoiceStatus')[0]; if (row) row.to = 'Settled'; }, /names no status Settled/],
    ['an ACH command no row triggers', (doc) => {
      const machine = machineOf(doc, 'AchTransactionStatus');
      machine.transitions = (machine.transitions as JsonObject[]).filter((r) => r.trigger !== 'holdAchTransaction');
    }, /holdAchTransaction is no trigger/],
    ['a card command no row triggers', (doc) => {
      const machine = machineOf(doc, 'CardTransactionStatus');
      machine.transitions = (machine.transitions as JsonObject[]).filter((r) => r.trigger !== 'captureCardTransaction');
    }, /captureCardTransaction is no trigger/],
    ['a card operation in the ACH table', (doc) => { const row = transitionsOf(doc, 'AchTransactionStatus')[4]; if (row) row.trigger = 'voidCardTransaction'; }, /is an operation of Card Payments/],
    ['a Terminals command no row triggers', (doc) => {
      const machine = machineOf(doc, 'TerminalPaperStatus');
      machine.transitions = (machine.transitions as JsonObject[]).filter((r) => r.trigger !== 'registerTerminal');
    }, /registerTerminal is no trigger/],
    ['a card operation in the terminal table', (doc) => { const row = transitionsOf(doc, 'TerminalPaperStatus')[1]; if (row) row.trigger = 'voidCardTransaction'; }, /is an operation of Card Payments, not Terminals/],
    ['a sandbox trigger without its refusal', (doc) => { delete asObject(asObject(machineOf(doc, 'TerminalPaperStatus').refusal).errorCodes).setSandboxTerminalPaperStatus; }, /setSandboxTerminalPaperStatus has no refusal errorCode/],
    ['a Quick Payments command no row triggers', (doc) => {
      const machine = machineOf(doc, 'QuickPaymentStatus');
      machine.transitions = (machine.transitions as JsonObject[]).filter((r) => r.trigger !== 'cancelQuickPayment');
      delete asObject(asObject(machine.refusal).errorCodes).cancelQuickPayment;
    }, /cancelQuickPayment is no trigger/],
    ['a card operation in the payment-link table', (doc) => { const row = transitionsOf(doc, 'QuickPaymentStatus')[0]; if (row) row.trigger = 'voidCardTransaction'; }, /is an operation of Card Payments, not Quick Payments/],
    ["the link's sandbox payment without its refusal", (doc) => { delete asObject(asObject(machineOf(doc, 'QuickPaymentStatus').refusal).errorCodes).paySandboxQuickPayment; }, /paySandboxQuickPayment has no refusal errorCode/],
    ['an invoice trigger without its refusal', (doc) => { delete asObject(asObject(machineOf(doc, 'InvoiceStatus').refusal).errorCodes).cancelInvoice; }, /cancelInvoice has no refusal errorCode/],
    ['a return code in two rows', (doc) => { const row = transitionsOf(doc, 'AchTransactionStatus').find((r) => r.trigger === 'network.return.failed'); if (row) row.returnCodes = [...(row.returnCodes as string[]), 'R05']; }, /return code R05 picks 2 rows/],
    ['a return code no row names', (doc) => { const row = transitionsOf(doc, 'AchTransactionStatus').find((r) => r.trigger === 'network.return.failed'); if (row) row.returnCodes = (row.returnCodes as string[]).filter((c) => c !== 'R16'); }, /return code R16 picks 0 rows/],
    ['an unknown return code', (doc) => { const row = transitionsOf(doc, 'AchTransactionStatus').find((r) => r.trigger === 'network.return.failed'); if (row) row.returnCodes = ['R99']; }, /return code R99 is not an AchReturnCode/],
    ['a return code table that disagrees with the rows', (doc) => {
      const schema = asObject(asObject(asObject(doc.components).schemas).AchReturnCode);
      schema.description = String(schema.description).replace('| `R07` | Authorization revoked by the customer | ChargedBack', '| `R07` | Authorization revoked by the customer | Failed');
    }, /table says R07 leads to Failed, its row to ChargedBack/],
  ];
  it.each(mutations)('catch %s', (_name, mutate, expected) => {
    const doc = loadBundle();
    mutate(doc);
    expect(problems(doc).join('\n')).toMatch(expected);
  });
});
