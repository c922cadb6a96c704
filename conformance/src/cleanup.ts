// The clean-up ledger: what a run created on a target it does not own (no sandbox of its own), and the undoing of
// it at the end. Created records are recorded from the 2xx answers of create operations; the matching delete
// operation is derived from the spec (the DELETE at the create's path, or its parent's, plus `/{id}`), so a new
// family of records is cleaned up without a line here. What cannot be undone is said, not hidden.
import type { CallOptions, Exchange } from './http.ts';
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
export type Caller = (operationId: string, options: CallOptions) => Promise<Exchange>;

const paramsOf = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');

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
  /** Records made by operations that have no delete: operationId -> ids. */
  private readonly undeletable = new Map<string, Set<string>>();

  constructor(private readonly spec: Spec) {
    this.rules = deleteRules(spec);
  }

  /** Records what a call created (an observer of the HTTP layer). */
  observe(operationId: string, options: CallOptions, exchange: Exchange): void {
    const status = exchange.response?.status ?? 0;
    if (status < 200 || status > 299 || !isObject(exchange.response?.body)) return;
    const op = this.spec.operations.get(operationId);
    if (op?.method !== 'post') return;
    const body = exchange.response.body;
    const path = options.path ?? {};
    const rule = this.rules.get(operationId);
    if (rule) {
      const id = idOfAnswer(body, rule.idParam);
      if (id === undefined) return;
      const headers: Record<string, string> = {};
      // A record a partner made for a merchant is deleted by the partner for the same merchant.
      for (const [name, value] of Object.entries(options.headers ?? {})) if (name.toLowerCase() === 'x-merchant-id') headers[name] = value;
      const key = `${rule.deleteOperation} ${id}`;
      if (!this.created.has(key)) this.created.set(key, { createOperation: operationId, rule, path: { ...pick(path, rule.parentParams), [rule.idParam]: id }, as: options.as ?? 'A', headers });
      return;
    }
    // An action on a record (capture, hold, ping) answers that record, named in its path: nothing new was made.
    if (operationId === 'requestToken' || operationId === 'requestCrmToken') return;
    const id = typeof body.id === 'string' ? body.id : typeof body.transactionId === 'string' ? body.transactionId : undefined;
    if (id === undefined || Object.values(path).includes(id)) return;
    let ids = this.undeletable.get(operationId);
    if (!ids) this.undeletable.set(operationId, (ids = new Set()));
    ids.add(id);
  }

  /** How many records the ledger would delete. */
  get pending(): number {
    return this.created.size;
  }

  /**
   * Deletes every record the run created and still exists, newest first (a customer's payment method before the
   * customer, a line item before its category). A 404 is a record a check already deleted.
   */
  async undo(call: Caller): Promise<CleanupOutcome> {
    const deleted: Record<string, number> = {};
    const notUndone: string[] = [];
    const refused = new Map<string, { count: number; status: string }>();
    for (const record of [...this.created.values()].reverse()) {
      const res = await call(record.rule.deleteOperation, { as: record.as, path: record.path, headers: record.headers });
      const status = res.response?.status;
      if (status !== undefined && status >= 200 && status < 300) deleted[record.createOperation] = (deleted[record.createOperation] ?? 0) + 1;
      else if (status !== 404) {
        const why = status === undefined ? res.error ?? 'no answer' : `${String(status)}${isObject(res.response?.body) && typeof res.response.body.errorCode === 'string' ? ` ${res.response.body.errorCode}` : ''}`;
        const entry = refused.get(record.rule.deleteOperation) ?? { count: 0, status: why };
        entry.count++;
        refused.set(record.rule.deleteOperation, entry);
      }
    }
    this.created.clear();
    for (const [op, { count, status }] of refused) notUndone.push(`${op} refused ${plural(count, 'record')} the run created (${status}; a paid invoice cannot be deleted, say)`);
    for (const [op, ids] of this.undeletable) notUndone.push(`${op} made ${plural(ids.size, 'record')} the interface cannot delete`);
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
