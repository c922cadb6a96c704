// The events of a walk: counted by a webhook endpoint's delivery log (exact at once), delivered to the suite's
// receiver, and each delivered event compared with a read of its record taken as it arrives: an event says what
// a read says (the fields both carry), not what the record was before the change.
import { OperationId } from '@pgw/client/operations';
import { bodyOf, type CheckContext } from '../check.ts';
import { operationIdOf, type Exchange } from '../http.ts';
import { Receiver, type Delivery } from '../receiver.ts';
import { machineOf, type Machine } from './machine-tables.ts';
import { currentReceiverOptions } from './webhooks.ts';

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * How an event's record is read, by family: the read operation, its path parameter, the id field of `data`, and
 * the status machine of the family (its schema in the spec, the field that holds the status).
 */
interface RecordRead {
  readonly events: RegExp; readonly operation: OperationId; readonly param: string; readonly idField: string;
  readonly machine?: { readonly schema: string; readonly field: string };
}
export const RECORD_READS: readonly RecordRead[] = [
  { events: /^payment\.card\./, operation: OperationId.getTransactionStatus, param: 'transactionId', idField: 'transactionId', machine: { schema: 'CardTransactionStatus', field: 'statusId' } },
  { events: /^payment\.ach\./, operation: OperationId.getTransactionStatus, param: 'transactionId', idField: 'transactionId', machine: { schema: 'AchTransactionStatus', field: 'statusId' } },
  { events: /^invoice\./, operation: OperationId.getInvoice, param: 'invoiceId', idField: 'id', machine: { schema: 'InvoiceStatus', field: 'status' } },
  { events: /^subscription\./, operation: OperationId.getSubscription, param: 'subscriptionId', idField: 'subscriptionId', machine: { schema: 'SubscriptionStatus', field: 'status' } },
  { events: /^quick_payment\./, operation: OperationId.getQuickPayment, param: 'quickPaymentId', idField: 'id', machine: { schema: 'QuickPaymentStatus', field: 'status' } },
  { events: /^terminal\./, operation: OperationId.getTerminal, param: 'terminalId', idField: 'terminalId', machine: { schema: 'TerminalPaperStatus', field: 'paperStatus' } },
];

/** A status as the table names it (an id through the schema's x-enum-varnames). */
const statusName = (machine: Machine, value: unknown): string => (typeof value === 'number' ? machine.names.get(value) ?? String(value) : String(value));

/**
 * What the table says of an event against the read of its record: the statuses the rows naming the event move
 * to (the event must carry one of them: it describes the record after its change), and whether the record may
 * have moved on from the event's status to the read's by a row that emits nothing (a due date passing, say), so
 * that the read no longer shows what the event said.
 */
function byTheTable(machine: Machine, eventType: string, eventStatus: string, readStatus: string): { allowed: Set<string>; movedOnQuietly: boolean } {
  const allowed = new Set(machine.rows.filter((r) => r.event === eventType).flatMap((r) => (r.to === 'same' ? r.from : [r.to])));
  const movedOnQuietly = eventStatus !== readStatus && machine.rows.some((r) => (r.event ?? null) === null && r.from.includes(eventStatus) && (r.to === readStatus));
  return { allowed, movedOnQuietly };
}

const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;

/** The fields an event and a read both carry that differ (dates compared as instants, objects field by field). */
export function differences(event: unknown, read: unknown, at = ''): string[] {
  if (typeof event === 'string' && typeof read === 'string' && DATE_TIME.test(event) && DATE_TIME.test(read)) {
    return Date.parse(event) === Date.parse(read) ? [] : [`${at} ${event} (a read: ${read})`];
  }
  if (isObject(event) && isObject(read)) {
    return Object.keys(event).filter((k) => k in read).flatMap((k) => differences(event[k], read[k], at === '' ? k : `${at}.${k}`));
  }
  if (Array.isArray(event) && Array.isArray(read) && event.length === read.length) return event.flatMap((v, i) => differences(v, read[i], `${at}[${String(i)}]`));
  return JSON.stringify(event) === JSON.stringify(read) ? [] : [`${at} ${JSON.stringify(event)} (a read: ${JSON.stringify(read)})`];
}

/** How long a logged event may take to reach the receiver. */
const DELIVERY_MS = 15_000;

export class EventLog {
  private readonly undelivered: [string, Exchange | undefined][] = [];
  /**
   * Events that disagreed with the read of their record, by record. The business clock's own work may move a
   * record between an event and the read (a subscription due at once is charged by the worker): a later event
   * of the same record excuses an earlier disagreement, as that later event is then held against its own read.
   */
  private readonly pending = new Map<string, [string, Exchange | undefined]>();

  /** What disagreed: an event against the read of its record, or events logged and never delivered. */
  get disagreements(): [string, Exchange | undefined][] {
    return [...this.undelivered, ...this.wrongStatus, ...this.pending.values()];
  }
  private readonly wrongStatus: [string, Exchange | undefined][] = [];
  /** The status machines of the families, from the spec (those it declares). */
  private readonly machines = new Map<string, Machine>();
  private readonly compared = new Set<string>();
  private settling: Promise<void> = Promise.resolve();
  /** How many of the receiver's deliveries were read already. */
  private parsedCount = 0;
  /** Whether a call through `watching` may have changed something since the last comparison began. */
  private changed = true;

  private constructor(private readonly ctx: CheckContext, readonly webhookId: string, private readonly receiver: Receiver) {
    for (const { machine } of RECORD_READS) {
      const found = machine ? machineOf(ctx.spec, machine.schema) : undefined;
      if (found) this.machines.set(found.schema, found);
    }
  }

  static async open(ctx: CheckContext): Promise<EventLog | undefined> {
    const types = Object.keys(isObject(ctx.spec.document.webhooks) ? ctx.spec.document.webhooks : {});
    const receiver = new Receiver();
    await receiver.start(currentReceiverOptions());
    const created = await ctx.call(OperationId.createWebhookEndpoint, { body: { name: ctx.unique('machine-events'), endpointUrl: receiver.url('/walk'), eventTypes: types } });
    const id = bodyOf(created).id;
    if (created.response?.status === 200 && typeof id === 'string') return new EventLog(ctx, id, receiver);
    await receiver.stop();
    return undefined;
  }

  /**
   * The context a walk calls through: after each call that may change something (not a read), the events it
   * emitted are awaited and each compared with a read of its record, before the walk's next step can move it.
   */
  watching(ctx: CheckContext): CheckContext {
    const watched = Object.create(ctx) as CheckContext & { call: CheckContext['call'] };
    watched.call = async (operation, options) => {
      const exchange = await ctx.call(operation, options);
      if (mayChange(ctx, operationIdOf(operation))) {
        this.changed = true;
        await this.settle();
      }
      return exchange;
    };
    return watched;
  }

  /** Entries of the log so far, of one event type or of all; the events delivered by then are compared first. */
  async total(eventType?: string): Promise<number> {
    // Compared again only after a call that may have changed something: a walk counts before and after each
    // command, and the call between already settled (3 of the 5 log reads a command cost were repeats).
    if (this.changed) await this.settle();
    else await this.settling;
    return this.count(eventType);
  }

  private async count(eventType?: string): Promise<number> {
    const page = await this.ctx.call(OperationId.listWebhookDeliveryLogs, { path: { webhookId: this.webhookId }, query: { pageSize: 1, ...(eventType === undefined ? {} : { eventType }) } });
    return Number(bodyOf(page).total);
  }

  /** Waits for every logged event to be delivered, then reads the record of each new one (one at a time). */
  settle(): Promise<void> {
    this.settling = this.settling.then(() => this.compareDelivered());
    return this.settling;
  }

  private async compareDelivered(): Promise<void> {
    this.changed = false;
    const logged = await this.count();
    // Once events were logged and not delivered, the walk's later steps do not wait for them again.
    const delivered = await this.receiver.waitFor('/walk', logged, this.undelivered.length > 0 ? 0 : DELIVERY_MS);
    // Deliveries come in order, and every one parsed before was compared then: only the newer ones are read (a
    // walk settles after each step; parsing all of them each time was 8% of a run's CPU).
    const fresh = delivered.slice(this.parsedCount).map(parsed).filter((e): e is Event => e !== undefined && !this.compared.has(e.id));
    this.parsedCount = delivered.length;
    if (delivered.length < logged && this.undelivered.length === 0) {
      this.undelivered.push([`${String(logged)} events logged for the walk's webhook endpoint, ${String(delivered.length)} delivered to the suite's receiver within ${String(DELIVERY_MS / 1000)} s`, undefined]);
    }
    // Of the events one step emitted on a record, only the last describes the state a read shows (the others
    // describe states already gone); deliveries run in parallel and need not arrive in order, so the step's
    // events of a record agree when one of them says what the read says.
    const byRecord = new Map<string, { read: RecordRead; recordId: string; events: Event[] }>();
    for (const event of fresh) {
      this.compared.add(event.id);
      const read = RECORD_READS.find((r) => r.events.test(event.type));
      const recordId = read && isObject(event.data) ? event.data[read.idField] : undefined;
      if (!read || typeof recordId !== 'string') continue;
      const key = `${read.operation} ${recordId}`;
      const entry = byRecord.get(key) ?? { read, recordId, events: [] };
      entry.events.push(event);
      byRecord.set(key, entry);
    }
    for (const [key, { read, recordId, events }] of byRecord) {
      this.pending.delete(key);
      const exchange = await this.ctx.call(read.operation, { path: { [read.param]: recordId } });
      const first = events[0];
      if (!first) continue;
      if (exchange.response?.status !== 200) {
        this.pending.set(key, [`${first.type} ${first.id}: its record does not read (${read.operation} answered ${String(exchange.response?.status)})`, exchange]);
        continue;
      }
      const machine = read.machine ? this.machines.get(read.machine.schema) : undefined;
      const field = read.machine?.field ?? '';
      // Each event carries a status one of its rows moves to (the table says which).
      for (const e of events) {
        if (!machine || !isObject(e.data) || !(field in e.data)) continue;
        const { allowed } = byTheTable(machine, e.type, '', '');
        const said = statusName(machine, e.data[field]);
        if (allowed.size > 0 && !allowed.has(said)) this.wrongStatus.push([`${e.type} ${e.id} carries ${field} ${said}: the rows of ${machine.schema} that emit it move to ${[...allowed].join(' or ')} (an event describes the record after its change)`, exchange]);
      }
      const readStatus = machine ? statusName(machine, bodyOf(exchange)[field]) : '';
      const differ = events.map((e) => {
        const eventStatus = machine && isObject(e.data) ? statusName(machine, e.data[field]) : '';
        // The record moved on, by a row that emits nothing, after the event: the read cannot show what it said.
        if (machine && byTheTable(machine, e.type, eventStatus, readStatus).movedOnQuietly) return [];
        return differences(e.data, bodyOf(exchange));
      });
      if (differ.every((d) => d.length > 0)) {
        const named = events.map((e, i) => `${e.type} ${e.id}: ${(differ[i] ?? []).slice(0, 4).join('; ')}`).join(' | ');
        this.pending.set(key, [`${events.length === 1 ? 'an event says' : `none of ${String(events.length)} events of one step says`} what a read of its record taken as it came says: ${named}`, exchange]);
      }
    }
  }

  async close(): Promise<void> {
    await this.settle().catch(() => undefined);
    await this.ctx.call(OperationId.deleteWebhookEndpoint, { path: { webhookId: this.webhookId } });
    await this.receiver.stop();
  }
}

/** Whether an operation may change a record (and so emit): not a read, a list, a search or an export. */
function mayChange(ctx: CheckContext, operationId: string): boolean {
  const method = ctx.spec.operations.get(operationId)?.method ?? 'post';
  return method.toLowerCase() !== 'get' && !/^(get|list|search|export)[A-Z]/.test(operationId);
}

interface Event { id: string; type: string; data: unknown }
function parsed(delivery: Delivery): Event | undefined {
  try {
    const body = JSON.parse(delivery.body) as unknown;
    return isObject(body) && typeof body.id === 'string' && typeof body.type === 'string' ? { id: body.id, type: body.type, data: body.data } : undefined;
  } catch {
    return undefined;
  }
}
