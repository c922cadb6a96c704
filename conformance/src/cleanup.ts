// The clean-up ledger: what a run created on a target it does not own (no sandbox of its own), and the undoing of
// it at the end. Created records are recorded from the 2xx answers of create operations; the matching delete
// operation is derived from the spec (the DELETE at the create's path, or its parent's, plus `/{id}`), so a new
// family of records is cleaned up without a line here. What cannot be undone is said, not hidden.
import { OperationId } from '@pgw/client/operations';
import type { CallOptions, Exchange, Operation } from './http.ts';
import type { Spec } from './spec.ts';

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

interface DeleteRule {
  deleteOperation: string;
  /** The delete's last path parameter: the record's id. */
  idParam: string;
  /** The delete's other path parameters, taken from the create's (a customer's payment method). */
  parentParams: string[];
}

interface Created {
  createOperation: string;
  rule: DeleteRule;
  path: Record<string, string>;
  as: string;
  headers: Record<string, string>;
}

/** The caller of an operation and the deletes it is owed. */
export type Caller = (operation: Operation, options: CallOptions) => Promise<Exchange>;

const paramsOf = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The path parameters of a request's URL, read against the operation's path template. */
function paramsFromUrl(template: string, url: string): Record<string, string> {
  const names = paramsOf(template);
  const pattern = new RegExp(`${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '([^/?#]+)')}(?:[?#]|$)`);
  const match = pattern.exec(new URL(url).pathname);
  const found: Record<string, string> = {};
  names.forEach((name, i) => {
    const value = match?.[i + 1];
    if (value !== undefined) {
      try { found[name] = decodeURIComponent(value); } catch { found[name] = value; }
    }
  });
  return found;
}

/** For each POST operation that creates a record the spec can delete: how to delete it. */
export function deleteRules(spec: Spec): Map<string, DeleteRule> {
  const deletes = [...spec.operations.values()].filter((op) => op.method === 'delete' && /\/\{[^}]+\}$/.test(op.path));
  const rules = new Map<string, DeleteRule>();
  for (const op of spec.operations.values()) {
    if (op.method !== 'post' || op.destructive) continue;
    const segments = op.path.split('/');
    // The create's own path (POST /customers), or its parent when the last segment is a literal
    // (POST /invoices/publish, POST /customers/{id}/payment-methods/cards).
    const bases = [op.path, ...(/^\{/.test(segments.at(-1) ?? '') ? [] : [segments.slice(0, -1).join('/')])];
    for (const base of bases) {
      const found = deletes.find((d) => d.path.slice(0, d.path.lastIndexOf('/')) === base);
      if (!found) continue;
      const params = paramsOf(found.path);
      rules.set(op.operationId, { deleteOperation: found.operationId, idParam: params.at(-1) ?? '', parentParams: params.slice(0, -1) });
      break;
    }
  }
  return rules;
}

/** The POST operations that make records the spec has no delete for (transactions, devices): counted, not undone. */
const idOfAnswer = (body: JsonObject, name: string): string | undefined => {
  const value = body[name] ?? body.id;
  return typeof value === 'string' && value !== '' ? value : undefined;
};

export interface CleanupOutcome {
  /** Deleted by the clean-up (records the checks had deleted themselves are not counted). */
  deleted: Record<string, number>;
  /** What could not be undone, said in words (left records, refused deletes, a moved clock). */
  notUndone: string[];
}

export class CleanupLedger {
  private readonly rules: Map<string, DeleteRule>;
  private readonly created = new Map<string, Created>();
  /** Records made by operations that have no delete (transactions): operationId -> id -> who made it. */
  private readonly undeletable = new Map<string, Map<string, { as: string; headers: Record<string, string> }>>();
  /** Settings the run changed in place ("updateInvoiceSettings changed merchant A's settings"). */
  private readonly settingsChanged = new Set<string>();
  /** Every id the run's requests named. */
  private readonly named = new Set<string>();

  constructor(private readonly spec: Spec) {
    this.rules = deleteRules(spec);
  }

  /** Records what a request created (an observer of the HTTP layer, raw requests to an operation included). */
  observe(operationId: string, options: CallOptions, exchange: Exchange): void {
    const op = this.spec.operations.get(operationId);
    if (!op) return;
    const path = { ...paramsFromUrl(op.path, exchange.request.url), ...options.path };
    // Every id the run sends is one it knows: a record the answer links to and the run never named was made for it.
    for (const id of `${exchange.request.url} ${exchange.request.body ?? ''}`.match(UUID) ?? []) this.named.add(id.toLowerCase());
    const status = exchange.response?.status ?? 0;
    // So is every id a list showed it (a collection read: a GET whose path does not end in an id): a record that
    // was there before the run is never taken for one the gateway made for it.
    if (op.method === 'get' && !/\}$/.test(op.path)) for (const id of exchange.response?.text.match(UUID) ?? []) this.named.add(id.toLowerCase());
    // A call with a bearer token of its own (a sandbox merchant a check made, deleted with all it holds) changed
    // nothing of the merchants given.
    if (options.as === 'none' && Object.keys(options.headers ?? {}).some((h) => h.toLowerCase() === 'authorization')) return;
    // Settings (a PUT on the merchant itself, no record id) are changed in place: said, for no delete undoes them.
    if (op.method === 'put' && status >= 200 && status < 300 && paramsOf(op.path).every((p) => p === 'merchantId')) this.settingsChanged.add(`${operationId} changed merchant ${options.as ?? 'A'}'s settings`);
    if (op.method !== 'post' || status < 200 || status > 299 || !isObject(exchange.response?.body)) return;
    const body = exchange.response.body;
    const as = options.as === undefined || options.as === 'none' ? 'A' : options.as;
    const headers: Record<string, string> = {};
    // A record a partner made for a merchant is deleted by the partner for the same merchant.
    for (const [name, value] of Object.entries(options.headers ?? {})) if (name.toLowerCase() === 'x-merchant-id') headers[name] = value;
    const rule = this.rules.get(operationId);
    if (rule) {
      const id = idOfAnswer(body, rule.idParam);
      if (id === undefined) return;
      const key = `${rule.deleteOperation} ${id}`;
      if (!this.created.has(key)) this.created.set(key, { createOperation: operationId, rule, path: { ...pick(path, rule.parentParams), [rule.idParam]: id }, as, headers });
      return;
    }
    // An action on a record (capture, hold, ping) answers that record, named in its path: nothing new was made.
    if (operationId === OperationId.requestToken || operationId === OperationId.requestCrmToken) return;
    const id = typeof body.id === 'string' ? body.id : typeof body.transactionId === 'string' ? body.transactionId : undefined;
    if (id === undefined || Object.values(path).includes(id)) return;
    let ids = this.undeletable.get(operationId);
    if (!ids) this.undeletable.set(operationId, (ids = new Map<string, { as: string; headers: Record<string, string> }>()));
    ids.set(id, { as, headers });
  }

  /** The customers the run's invoices and transactions link to that the run never named: the gateway made them. */
  private async generatedCustomers(call: Caller): Promise<Map<string, { as: string; headers: Record<string, string> }>> {
    const found = new Map<string, { as: string; headers: Record<string, string> }>();
    const reads: [OperationId, string, string, { as: string; headers: Record<string, string> }][] = [];
    if (this.spec.operations.has(OperationId.getInvoice)) {
      for (const r of this.created.values()) if (r.rule.idParam === 'invoiceId' && r.path.invoiceId !== undefined) reads.push([OperationId.getInvoice, 'invoiceId', r.path.invoiceId, r]);
    }
    if (this.spec.operations.has(OperationId.getTransactionStatus)) {
      for (const ids of this.undeletable.values()) for (const [id, who] of ids) reads.push([OperationId.getTransactionStatus, 'transactionId', id, who]);
    }
    const createdCustomers = new Set([...this.created.values()].filter((r) => r.rule.idParam === 'customerId').map((r) => r.path.customerId));
    for (const [op, param, id, who] of reads) {
      const res = await call(op, { as: who.as, headers: who.headers, path: { [param]: id } });
      const customerId = isObject(res.response?.body) ? res.response.body.customerId : undefined;
      if (typeof customerId !== 'string' || this.named.has(customerId.toLowerCase()) || createdCustomers.has(customerId)) continue;
      found.set(customerId, { as: who.as, headers: who.headers });
    }
    return found;
  }

  /** How many records the ledger would delete. */
  get pending(): number {
    return this.created.size;
  }

  /**
   * Deletes every record the run created and still exists, newest first (a customer's payment method before the
   * customer, a line item before its category). A 404 is a record a check already deleted.
   */
  async undo(call: Caller, only?: (as: string) => boolean): Promise<CleanupOutcome> {
    const deleted: Record<string, number> = {};
    const notUndone: string[] = [];
    const refused = new Map<string, { count: number; status: string }>();
    if (only) {
      // Sandbox mode: what the merchants made goes with their sandboxes; only what the partner made is deleted here.
      for (const [key, record] of this.created) if (!only(record.as)) this.created.delete(key);
      this.undeletable.clear();
      this.settingsChanged.clear();
    }
    for (const record of [...this.created.values()].reverse()) {
      const res = await call(this.spec.operation(record.rule.deleteOperation), { as: record.as, path: record.path, headers: record.headers });
      const status = res.response?.status;
      if (status !== undefined && status >= 200 && status < 300) deleted[record.createOperation] = (deleted[record.createOperation] ?? 0) + 1;
      else if (status !== 404) {
        const why = status === undefined ? res.error ?? 'no answer' : `${String(status)}${isObject(res.response?.body) && typeof res.response.body.errorCode === 'string' ? ` ${res.response.body.errorCode}` : ''}`;
        const entry = refused.get(record.rule.deleteOperation) ?? { count: 0, status: why };
        entry.count++;
        refused.set(record.rule.deleteOperation, entry);
      }
    }
    // Customers the gateway generated for the run's records (an ACH payment from account details, a paid invoice
    // without a customer): found on those records, deleted once nothing of the run refers to them any more.
    for (const [customerId, who] of await this.generatedCustomers(call)) {
      const res = await call(OperationId.deleteCustomer, { as: who.as, headers: who.headers, path: { customerId } });
      const status = res.response?.status ?? 0;
      if (status >= 200 && status < 300) deleted.generatedCustomer = (deleted.generatedCustomer ?? 0) + 1;
      else if (status !== 404) notUndone.push(`deleteCustomer refused a customer the gateway generated for the run (${String(status)})`);
    }
    this.created.clear();
    for (const [op, { count, status }] of refused) notUndone.push(`${op} refused ${plural(count, 'record')} the run created (${status})`);
    for (const [op, ids] of this.undeletable) notUndone.push(`${op} made ${plural(ids.size, 'record')} the interface cannot delete`);
    notUndone.push(...this.settingsChanged);
    return { deleted, notUndone };
  }
}

const plural = (n: number, noun: string): string => `${String(n)} ${noun}${n === 1 ? '' : 's'}`;

function pick(from: Record<string, string>, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) if (from[name] !== undefined) picked[name] = from[name];
  return picked;
}

/** "moved merchant A's clock by 9 days" (hours under two days), or undefined when it did not move. */
export function clockMoved(who: string, seconds: number): string | undefined {
  if (!(seconds > 0)) return undefined;
  const amount = seconds >= 2 * 86_400 ? `${(seconds / 86_400).toFixed(1).replace(/\.0$/, '')} days` : seconds >= 7200 ? `${(seconds / 3600).toFixed(1).replace(/\.0$/, '')} hours` : `${String(Math.round(seconds))} seconds`;
  return `moved merchant ${who}'s business clock by ${amount} (a sandbox clock only moves forward)`;
}
