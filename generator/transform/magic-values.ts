// The document's x-sandbox-magic-values (spec/data/magic-values.yaml) -> magic-values.ts: the sandbox's magic
// card numbers, amounts, postal codes and ACH account numbers as typed tables. Refuses a value that names
// anything the document does not define (an operation, a card type, a response or return code, a status),
// so that the server and the conformance suite apply only what the contract says.
import type { GeneratedFile, Printer } from '../lib/ts.ts';
import type { JsonObject } from '../model.ts';
import { literal, propertyKey } from '../names.ts';

const asObject = (v: unknown): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {});
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The document's extension that holds the data. */
export const MAGIC_VALUES = 'x-sandbox-magic-values';

export interface MagicCard { number: string; cardType: number; cardTypeName: string; responseCode: string; cvvResult: string | null; outcome: string }
export interface MagicAmount { amount: number; cents: number; responseCode: string; approvedAmount: number | null; approvedCents: number | null; outcome: string }
export interface MagicPostalCode { postalCode: string; avsResult: string; outcome: string }
export interface MagicAchAccount {
  accountNumber: string;
  /** The digits after the family's prefix, which is what a stored account keeps of the number. */
  code: string;
  returnCode: string | null;
  responseCode: string | null;
  status: number;
  statusName: string;
  outcome: string;
}

/** The magic values, checked against the document and with names resolved to ids. */
export interface MagicValuesModel {
  provenance: 'designed' | 'seed';
  provenanceNote: string;
  cards: { title: string; note: string; operations: string[]; values: MagicCard[] };
  amounts: { title: string; note: string; operations: string[]; values: MagicAmount[] };
  limit: { field: string; responseCode: string; outcome: string; operations: string[] };
  postalCodes: { title: string; operations: string[]; values: MagicPostalCode[]; otherwise: { withLine1: string; withoutLine1: string; noBillingAddress: string } };
  securityCode: { given: string; notGiven: string };
  achAccounts: {
    title: string; note: string; operations: string[]; values: MagicAchAccount[];
    family: { prefix: string; digits: number; outcome: string; returnCodes: string[] };
    otherwise: { status: number; statusName: string; outcome: string };
  };
}

/** Names -> values of an enumeration: ids by x-enum-varnames name, or a string enum's values by themselves. */
function enumOf(schemas: JsonObject, name: string): Map<string, number | string> {
  const schema = asObject(schemas[name]);
  const values = asArray(schema.enum);
  const names = asArray(schema['x-enum-varnames']);
  if (names.length > 0) return new Map(names.map((n, i) => [String(n), Number(values[i])]));
  return new Map(values.map((v) => [String(v), String(v)]));
}

function operationIds(doc: JsonObject): Set<string> {
  return new Set(Object.values(asObject(doc.paths)).flatMap((item) => Object.values(asObject(item)).flatMap((op) => {
    const id = asObject(op).operationId;
    return typeof id === 'string' ? [id] : [];
  })));
}

/** Reads and checks the document's magic values; undefined when it declares none. */
export function readMagicValues(doc: JsonObject): MagicValuesModel | undefined {
  const raw = doc[MAGIC_VALUES];
  if (raw === undefined) return undefined;
  const schemas = asObject(asObject(doc.components).schemas);
  const operations = operationIds(doc);
  const vocabulary = {
    cardType: enumOf(schemas, 'CardType'),
    responseCode: enumOf(schemas, 'TransactionResponseCode'),
    returnCode: enumOf(schemas, 'AchReturnCode'),
    avsResult: enumOf(schemas, 'CardAvsResult'),
    cvvResult: enumOf(schemas, 'CardCvvResult'),
    status: enumOf(schemas, 'AchTransactionStatus'),
  };
  let where = MAGIC_VALUES;
  const fail = (message: string): never => {
    throw new Error(`${where}: ${message}`);
  };
  const text = (o: JsonObject, key: string): string => (typeof o[key] === 'string' && o[key] !== '' ? o[key] : fail(`${key} must be a non-empty string`));
  const known = (kind: keyof typeof vocabulary, value: unknown): string => {
    const key = String(value);
    if (!vocabulary[kind].has(key)) fail(`${kind} ${key} is not defined by the document`);
    return key;
  };
  const id = (kind: 'cardType' | 'status', name: unknown): number => Number(vocabulary[kind].get(known(kind, name)));
  const ops = (o: JsonObject): string[] => {
    const list = asArray(o.operations).map(String);
    if (list.length === 0) fail('operations must list the operationIds the values apply to');
    for (const op of list) if (!operations.has(op)) fail(`operation ${op} is no operationId of the document`);
    return list;
  };
  const cents = (amount: unknown): number => {
    if (typeof amount !== 'number' || !Number.isFinite(amount)) return fail('an amount must be a number');
    const value = Math.round(amount * 100);
    if (Math.abs(value - amount * 100) > 1e-6) fail(`amount ${String(amount)} has more than 2 decimal places`);
    return value;
  };
  const unique = <T>(values: T[], key: (v: T) => string, what: string): T[] => {
    const seen = new Set<string>();
    for (const v of values) {
      if (seen.has(key(v))) fail(`${what} ${key(v)} is listed twice`);
      seen.add(key(v));
    }
    return values;
  };

  const root = asObject(raw);
  const provenance = root.provenance === 'designed' || root.provenance === 'seed' ? root.provenance : fail('provenance must be designed or seed');

  where = `${MAGIC_VALUES}.cards`;
  const cardsRaw = asObject(root.cards);
  const cards = {
    title: text(cardsRaw, 'title'), note: text(cardsRaw, 'note'), operations: ops(cardsRaw),
    values: unique(asArray(cardsRaw.values).map((v): MagicCard => {
      const o = asObject(v);
      const number = text(o, 'number');
      if (!/^[0-9]{13,19}$/.test(number)) fail(`card number ${number} must have 13 to 19 digits`);
      return {
        number, cardType: id('cardType', o.cardType), cardTypeName: String(o.cardType), responseCode: known('responseCode', o.responseCode),
        cvvResult: o.cvvResult === undefined ? null : known('cvvResult', o.cvvResult), outcome: text(o, 'outcome'),
      };
    }), (c) => c.number, 'card number'),
  };

  where = `${MAGIC_VALUES}.amounts`;
  const amountsRaw = asObject(root.amounts);
  const amounts = {
    title: text(amountsRaw, 'title'), note: text(amountsRaw, 'note'), operations: ops(amountsRaw),
    values: unique(asArray(amountsRaw.values).map((v): MagicAmount => {
      const o = asObject(v);
      const approved = o.approvedAmount === undefined ? null : Number(o.approvedAmount);
      return {
        amount: Number(o.amount), cents: cents(o.amount), responseCode: known('responseCode', o.responseCode),
        approvedAmount: approved, approvedCents: approved === null ? null : cents(approved), outcome: text(o, 'outcome'),
      };
    }), (a) => String(a.cents), 'amount'),
  };

  where = `${MAGIC_VALUES}.limit`;
  const limitRaw = asObject(root.limit);
  const limit = { field: text(limitRaw, 'field'), responseCode: known('responseCode', limitRaw.responseCode), outcome: text(limitRaw, 'outcome'), operations: ops(limitRaw) };

  where = `${MAGIC_VALUES}.postalCodes`;
  const postalRaw = asObject(root.postalCodes);
  const otherwiseRaw = asObject(postalRaw.otherwise);
  const postalCodes = {
    title: text(postalRaw, 'title'), operations: ops(postalRaw),
    values: unique(asArray(postalRaw.values).map((v): MagicPostalCode => {
      const o = asObject(v);
      return { postalCode: text(o, 'postalCode'), avsResult: known('avsResult', o.avsResult), outcome: text(o, 'outcome') };
    }), (p) => p.postalCode, 'postal code'),
    otherwise: {
      withLine1: known('avsResult', otherwiseRaw.withLine1), withoutLine1: known('avsResult', otherwiseRaw.withoutLine1),
      noBillingAddress: known('avsResult', otherwiseRaw.noBillingAddress),
    },
  };

  where = `${MAGIC_VALUES}.securityCode`;
  const cvvRaw = asObject(root.securityCode);
  const securityCode = { given: known('cvvResult', cvvRaw.given), notGiven: known('cvvResult', cvvRaw.notGiven) };

  where = `${MAGIC_VALUES}.achAccounts`;
  const achRaw = asObject(root.achAccounts);
  const familyRaw = asObject(achRaw.family);
  const prefix = text(familyRaw, 'prefix');
  if (!/^[0-9]+$/.test(prefix)) fail('family.prefix must be digits');
  const returnCodes = [...vocabulary.returnCode.keys()];
  const digits = returnCodes.reduce((n, code) => Math.max(n, code.length - 1), 0);
  const ach = {
    title: text(achRaw, 'title'), note: text(achRaw, 'note'), operations: ops(achRaw),
    values: unique(asArray(achRaw.values).map((v): MagicAchAccount => {
      const o = asObject(v);
      const accountNumber = text(o, 'accountNumber');
      const code = accountNumber.slice(prefix.length);
      if (!accountNumber.startsWith(prefix) || !/^[0-9]+$/.test(code) || code.length !== digits) fail(`account number ${accountNumber} is not the prefix ${prefix} and ${String(digits)} digits`);
      const returnCode = o.returnCode === undefined ? null : known('returnCode', o.returnCode);
      const responseCode = o.responseCode === undefined ? null : known('responseCode', o.responseCode);
      if ((returnCode === null) === (responseCode === null)) fail(`account number ${accountNumber} must give either a returnCode or a responseCode`);
      if (returnCode !== null && returnCode !== `R${code}`) fail(`account number ${accountNumber} must stand for R${code}, its family's return code`);
      return { accountNumber, code, returnCode, responseCode, status: id('status', o.status), statusName: String(o.status), outcome: text(o, 'outcome') };
    }), (a) => a.accountNumber, 'account number'),
    family: { prefix, digits, outcome: text(familyRaw, 'outcome'), returnCodes },
    otherwise: { status: id('status', asObject(achRaw.otherwise).status), statusName: String(asObject(achRaw.otherwise).status), outcome: text(asObject(achRaw.otherwise), 'outcome') },
  };
  where = MAGIC_VALUES;
  return { provenance, provenanceNote: text(root, 'provenanceNote'), cards, amounts, limit, postalCodes, securityCode, achAccounts: ach };
}

/** A value as TypeScript: objects and arrays of objects over several lines, flat arrays and leaves inline. */
function tsValue(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (typeof value === 'string') return literal(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) {
    if (!value.some((v) => typeof v === 'object' && v !== null)) return `[${value.map((v) => tsValue(v)).join(', ')}]`;
    return `[\n${value.map((v) => `${inner}${inlineObject(v)},`).join('\n')}\n${indent}]`;
  }
  return `{\n${Object.entries(asObject(value)).map(([k, v]) => `${inner}${propertyKey(k)}: ${tsValue(v, inner)},`).join('\n')}\n${indent}}`;
}

/** One row of a table, on one line. */
const inlineObject = (value: unknown): string =>
  `{ ${Object.entries(asObject(value)).map(([k, v]) => `${propertyKey(k)}: ${Array.isArray(v) ? tsValue(v) : typeof v === 'object' && v !== null ? inlineObject(v) : tsValue(v)}`).join(', ')} }`;

const TYPES = `/** A magic card number and what the issuer answers for it. */
export interface MagicCard {
  readonly number: string;
  readonly cardType: CardType;
  readonly cardTypeName: keyof typeof CardType;
  readonly responseCode: ResponseCode;
  /** The cvvResult when a security code is given; null: the usual one. */
  readonly cvvResult: CvvResult | null;
  readonly outcome: string;
}
/** A magic amount (with an approving card) and what the issuer answers for it. */
export interface MagicAmount {
  readonly amount: number;
  readonly cents: number;
  readonly responseCode: ResponseCode;
  readonly approvedAmount: number | null;
  readonly approvedCents: number | null;
  readonly outcome: string;
}
/** A billing postal code and the address verification result it gives. */
export interface MagicPostalCode { readonly postalCode: string; readonly avsResult: AvsResult; readonly outcome: string }
/** A magic ACH account number and what the network does with its entries. */
export interface MagicAchAccount {
  readonly accountNumber: string;
  /** The digits after the family's prefix: what a stored account keeps of the number. */
  readonly code: string;
  /** The return code at clearing, or null. */
  readonly returnCode: ReturnCode | null;
  /** The response code of a failure at submission, or null. */
  readonly responseCode: ResponseCode | null;
  readonly status: AchTransactionStatus;
  readonly statusName: keyof typeof AchTransactionStatus;
  readonly outcome: string;
}
/** The sandbox's magic values: each table with the operations it applies to. */
export interface SandboxMagicValues {
  readonly provenance: 'designed' | 'seed';
  readonly provenanceNote: string;
  readonly cards: { readonly title: string; readonly note: string; readonly operations: readonly OperationId[]; readonly values: readonly MagicCard[] };
  readonly amounts: { readonly title: string; readonly note: string; readonly operations: readonly OperationId[]; readonly values: readonly MagicAmount[] };
  /** How a test reaches the merchant's limit: an amount above its maxTransactionAmount answers this code. */
  readonly limit: { readonly field: string; readonly responseCode: ResponseCode; readonly outcome: string; readonly operations: readonly OperationId[] };
  readonly postalCodes: {
    readonly title: string; readonly operations: readonly OperationId[]; readonly values: readonly MagicPostalCode[];
    readonly otherwise: { readonly withLine1: AvsResult; readonly withoutLine1: AvsResult; readonly noBillingAddress: AvsResult };
  };
  /** The cvvResult with and without a security code (a magic card's own cvvResult wins). */
  readonly securityCode: { readonly given: CvvResult; readonly notGiven: CvvResult };
  readonly achAccounts: {
    readonly title: string; readonly note: string; readonly operations: readonly OperationId[]; readonly values: readonly MagicAchAccount[];
    /** Every number of the prefix and \`digits\` digits NN stands for RNN when that is one of returnCodes. */
    readonly family: { readonly prefix: string; readonly digits: number; readonly outcome: string; readonly returnCodes: readonly ReturnCode[] };
    readonly otherwise: { readonly status: AchTransactionStatus; readonly statusName: keyof typeof AchTransactionStatus; readonly outcome: string };
  };
}`;

/** The generated module; undefined when the document declares no magic values. */
export function transformMagicValues(doc: JsonObject, printer: Printer): GeneratedFile | undefined {
  const model = readMagicValues(doc);
  if (model === undefined) return undefined;
  return printer.file('magic-values.ts', `The sandbox's magic values (the document's ${MAGIC_VALUES}, spec/data/magic-values.yaml), as typed tables.`, [
    `import type { AchTransactionStatus, CardType } from './enums.ts';`,
    `import type { components, operations } from './types.ts';`,
    `type OperationId = keyof operations;
type Schemas = components['schemas'];
type ResponseCode = Schemas['TransactionResponseCode'];
type ReturnCode = Schemas['AchReturnCode'];
type AvsResult = Schemas['CardAvsResult'];
type CvvResult = Schemas['CardCvvResult'];`,
    TYPES,
    `/** The sandbox's magic values, as the contract gives them. */
export const sandboxMagicValues = ${tsValue(model)} as const satisfies SandboxMagicValues;`,
    `/** The first card number of the table that answers \`responseCode\` (\`000\`: a card that approves), or undefined. */
export function sandboxCardFor(responseCode: ResponseCode): string | undefined {
  return sandboxMagicValues.cards.values.find((card) => card.responseCode === responseCode)?.number;
}`,
  ]);
}
