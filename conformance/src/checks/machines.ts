// The transaction state machines, walked from the spec's own tables (`x-state-machine` on the status schemas):
// for each kind of record, every status the table lets the suite reach (by operations, and by the sandbox's
// network simulation where the target serves it) and every command of the table tried there: a permitted one
// answers its responseCode, reaches its status and emits its event; a forbidden one answers the machine's
// refusal, changes nothing and emits nothing. A new row or status in the spec is a new case without new code.
import { CheckFailure, failWithAll, CheckSkipped, bodyOf, expectStatus, type Check, type CheckContext } from '../check.ts';
import type { CallOptions, Exchange } from '../http.ts';
import { paymentProcessors, testCard } from '../fixtures.ts';
import { SpecReader } from '../negative-cases.ts';
import type { Spec } from '../spec.ts';

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface Row { from: string[]; trigger: string; to: string; responseCodes?: string[]; types?: string[]; event?: string | null; magic?: string; overLimit?: boolean }
/** A machine as the spec declares it: rows, the refusal (a responseCode, or an errorCode per trigger), names by id. */
export interface Machine { schema: string; refusalCode: string; errorCodes: Record<string, string>; rows: Row[]; names: Map<number, string> }

/** The network triggers the sandbox can force, as simulate requests. */
const SIMULATED: Record<string, JsonObject> = {
  'network.submit': { outcome: 'submit' },
  'network.clear': { outcome: 'settle' },
  'network.settle': { outcome: 'settle' },
  'network.return.chargeback': { outcome: 'return', returnCode: 'R05' },
  'network.return.failed': { outcome: 'return', returnCode: 'R01' },
  'network.fail': { outcome: 'fail' },
};

/** Triggers the business clock makes happen: the sandbox clock is advanced this many seconds past the rule. */
const CLOCK: Record<string, number> = {
  // Card authorizations expire 7 days after they were made (the 7-day expiry of the card network).
  'network.expire': 7 * 86_400 + 3_600,
};

/** A kind of record: the machine, the record type its rows name, and the operation that creates it. */
interface Kind { machine: string; type: string; create: string }
const KINDS: readonly Kind[] = [
  { machine: 'AchTransactionStatus', type: 'AchDebit', create: 'createAchDebit' },
  { machine: 'CardTransactionStatus', type: 'Authorization', create: 'authorizeCard' },
  { machine: 'CardTransactionStatus', type: 'Sale', create: 'createCardSale' },
];

export function machineOf(spec: Spec, schemaName: string): Machine | undefined {
  const schemas = isObject(spec.document.components) && isObject(spec.document.components.schemas) ? spec.document.components.schemas : {};
  const schema = schemas[schemaName];
  if (!isObject(schema) || !isObject(schema['x-state-machine'])) return undefined;
  const table = schema['x-state-machine'];
  const refusal = isObject(table.refusal) ? table.refusal : {};
  const values = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : [];
  const names = Array.isArray(schema['x-enum-varnames']) ? (schema['x-enum-varnames'] as unknown[]) : [];
  return {
    schema: schemaName,
    refusalCode: typeof refusal.responseCode === 'string' ? refusal.responseCode : '',
    errorCodes: isObject(refusal.errorCodes) ? (refusal.errorCodes as Record<string, string>) : {},
    rows: (Array.isArray(table.transitions) ? table.transitions : []).filter(isObject) as unknown as Row[],
    names: new Map(values.map((v, i) => [Number(v), String(names[i])])),
  };
}

const applies = (row: Row, kind: Kind): boolean => row.types === undefined || row.types.includes(kind.type);
const approves = (row: Row): boolean => row.responseCodes === undefined || row.responseCodes.length === 0 || row.responseCodes.includes('000');

/**
 * The sandbox's magic card numbers by the responseCode they produce, read from the spec's description (its
 * "Card number | Network | Outcome" table): how the walk reaches the statuses of a declining first row.
 */
function magicCards(spec: Spec): Map<string, string> {
  const info = isObject(spec.document.info) ? spec.document.info : {};
  const text = typeof info.description === 'string' ? info.description : '';
  const cards = new Map<string, string>();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const pan = /`(\d{13,19})`/.exec(cells[1] ?? '')?.[1];
    const code = /`(\d{3})`/.exec(cells[3] ?? '')?.[1];
    if (pan !== undefined && code !== undefined && !cards.has(code)) cards.set(code, pan);
  }
  return cards;
}

/**
 * The response codes the spec's TransactionResponseCode table explains by the merchant's `maxTransactionAmount`:
 * a declining first row with one of them is reached by an amount above the target's configured limit.
 */
function limitCodes(spec: Spec): Set<string> {
  const schemas = isObject(spec.document.components) && isObject(spec.document.components.schemas) ? spec.document.components.schemas : {};
  const codes = isObject(schemas.TransactionResponseCode) ? schemas.TransactionResponseCode : {};
  const text = typeof codes.description === 'string' ? codes.description : '';
  return new Set(text.split('\n').filter((line) => line.includes('maxTransactionAmount')).flatMap((line) => /^\|\s*`(\d{3})`/.exec(line)?.[1] ?? []));
}

/** How a declining first row is produced: a magic card for one of its codes, else an amount above the limit. */
function declining(row: Row, spec: Spec): Row | undefined {
  const magic = magicCards(spec);
  const pan = (row.responseCodes ?? []).map((code) => magic.get(code)).find((p) => p !== undefined);
  if (pan !== undefined) return { ...row, magic: pan };
  const limits = limitCodes(spec);
  return (row.responseCodes ?? []).some((code) => limits.has(code)) ? { ...row, overLimit: true } : undefined;
}

/** The declining first rows of a kind (its create answered with a business error), each with how to produce it. */
function decliningFirstRows(machine: Machine, kind: Kind, spec: Spec, limited: boolean): Row[] {
  return machine.rows.filter((r) => applies(r, kind) && r.from.includes('initial') && r.trigger === kind.create && !approves(r))
    .flatMap((r) => declining(r, spec) ?? []).filter((r) => limited || r.overLimit !== true);
}

/** The shortest way from `initial` to each status: approving rows, and declining first rows (magic card or limit). */
function routes(machine: Machine, kind: Kind, spec: Spec, limited: boolean): Map<string, Row[]> {
  const usable = machine.rows.filter((r) => applies(r, kind) && approves(r) && r.to !== 'same' && r.to !== 'removed' &&
    (spec.operations.has(r.trigger) ? true : r.trigger in SIMULATED || r.trigger in CLOCK));
  const found = new Map<string, Row[]>();
  const start = usable.find((r) => r.from.includes('initial') && r.trigger === kind.create);
  if (!start) return found;
  found.set(start.to, [start]);
  const queue = [start.to];
  for (const row of decliningFirstRows(machine, kind, spec, limited)) {
    if (found.has(row.to)) continue;
    found.set(row.to, [row]);
    queue.push(row.to);
  }
  while (queue.length > 0) {
    const at = queue.shift() ?? '';
    for (const row of usable.filter((r) => r.from.includes(at) && !found.has(r.to))) {
      found.set(row.to, [...(found.get(at) ?? []), row]);
      queue.push(row.to);
    }
  }
  return found;
}

class Records {
  private processors: { card: string; ach: string } | undefined;
  private readonly reader: SpecReader;
  constructor(private readonly ctx: CheckContext) { this.reader = new SpecReader(ctx.spec.document); }

  private async processor(kind: 'card' | 'ach'): Promise<string> {
    this.processors ??= await paymentProcessors(this.ctx);
    return this.processors[kind];
  }

  private configured: Promise<number | undefined> | undefined;
  /** The target's maxTransactionAmount (payment configuration); undefined when it sets none. */
  limit(): Promise<number | undefined> {
    this.configured ??= this.ctx.call('getPaymentConfiguration', {}).then((read) => {
      const max = bodyOf(read).maxTransactionAmount;
      return typeof max === 'number' ? max : undefined;
    });
    return this.configured;
  }

  /** The request of a trigger on a record: its example, the record's id, a small amount (above the limit for `overLimit`). */
  async request(op: string, transactionId: string | undefined, how: Pick<Row, 'magic' | 'overLimit'> = {}): Promise<CallOptions> {
    const pan = how.magic ?? '4111111111111111';
    const limit = how.overLimit === true ? await this.limit() : undefined;
    const amount = limit === undefined ? 20 : Math.floor(limit) + 1;
    const found = this.reader.operation(op);
    const example = found ? this.reader.jsonBody(found.op)?.example : undefined;
    const body: JsonObject = isObject(example) ? { ...example } : {};
    if ('amount' in body) body.amount = transactionId === undefined ? amount : 1;
    // Before settlement a card refund voids the whole transaction: no amount (the table's Captured to Voided row).
    if (op === 'refundCardTransaction') delete body.amount;
    if ('paymentProcessorId' in body || transactionId === undefined) body.paymentProcessorId = await this.processor(op.includes('Ach') ? 'ach' : 'card');
    if (op === 'authorizeCard' || op === 'createCardSale') {
      // A card entered now: the examples name a customer and a stored card of the spec's example, not the target's.
      return { body: { amount, paymentProcessorId: await this.processor('card'), card: testCard(pan) } };
    }
    return { ...(transactionId === undefined ? {} : { path: { transactionId } }), ...(found && this.reader.jsonBody(found.op) ? { body } : {}) };
  }

  async status(transactionId: string, machine: Machine): Promise<string> {
    const read = await this.ctx.call('getTransactionStatus', { path: { transactionId } });
    expectStatus(read, 200, 'getTransactionStatus');
    return machine.names.get(Number(bodyOf(read).statusId)) ?? `unknown status ${String(bodyOf(read).statusId)}`;
  }

  /** Rows whose event the walk has already seen emitted (each row's event is checked the first time it is followed). */
  private readonly eventSeen = new Set<string>();

  /**
   * A record of the kind in a status, by following the route's rows; undefined when the target cannot. The
   * first time a row with an event is followed, its event must be emitted: once for an operation or a
   * simulation, at least once for the clock (which moves every record of the merchant, not only this one).
   */
  async at(kind: Kind, machine: Machine, route: Row[], events?: EventLog): Promise<string | undefined> {
    let transactionId: string | undefined;
    for (const row of route) {
      const key = `${row.trigger} ${row.from.join('|')} ${row.to} ${(row.responseCodes ?? []).join('|')}`;
      const watched = events !== undefined && typeof row.event === 'string' && !this.eventSeen.has(key) ? row.event : undefined;
      const before = watched === undefined ? 0 : await events?.total(watched) ?? 0;
      let exchange: Exchange;
      if (this.ctx.spec.operations.has(row.trigger)) {
        exchange = await this.ctx.call(row.trigger, await this.request(row.trigger, transactionId, row));
      } else if (row.trigger in CLOCK) {
        exchange = await this.ctx.call('advanceSandboxClock', { body: { seconds: CLOCK[row.trigger] ?? 0 } });
        if (exchange.response?.status === 404 && this.ctx.spec.operation('advanceSandboxClock').designed) return undefined;
      } else {
        exchange = await this.ctx.call('simulateTransaction', { path: { transactionId: transactionId ?? '' }, body: SIMULATED[row.trigger] ?? {} });
        if (exchange.response?.status === 404 && this.ctx.spec.operation('simulateTransaction').designed) return undefined;
      }
      const goal = route[route.length - 1]?.to ?? '';
      expectStatus(exchange, 200, `${row.trigger} on the way to ${goal}`);
      transactionId ??= String(bodyOf(exchange).transactionId);
      const reached = await this.status(transactionId, machine);
      if (reached !== row.to) throw new CheckFailure(`${row.trigger} on the way to ${goal} left the ${kind.type} ${reached}, not ${row.to} as the table says`, exchange);
      if (watched !== undefined && events !== undefined) {
        const emitted = (await events.total(watched)) - before;
        const once = !(row.trigger in CLOCK);
        if (once ? emitted !== 1 : emitted < 1) throw new CheckFailure(`${row.trigger} from ${row.from.join('/')} to ${row.to}: ${once ? 'one' : 'at least one'} ${watched} event expected, ${String(emitted)} seen`, exchange);
        this.eventSeen.add(key);
      }
    }
    return transactionId;
  }
}

/**
 * The events a command emits, seen through a webhook endpoint subscribed to every event type: its delivery
 * log gains one entry per event, written with the event (the receiver need not answer).
 */
export class EventLog {
  private constructor(private readonly ctx: CheckContext, readonly webhookId: string) {}

  static async open(ctx: CheckContext): Promise<EventLog | undefined> {
    const types = Object.keys(isObject(ctx.spec.document.webhooks) ? ctx.spec.document.webhooks : {});
    const created = await ctx.call('createWebhookEndpoint', { body: { name: ctx.unique('machine-events'), endpointUrl: 'http://127.0.0.1:9/machine-events', eventTypes: types } });
    const id = bodyOf(created).id;
    return created.response?.status === 200 && typeof id === 'string' ? new EventLog(ctx, id) : undefined;
  }

  /** Entries of the log so far, of one event type or of all. */
  async total(eventType?: string): Promise<number> {
    const page = await this.ctx.call('listWebhookDeliveryLogs', { path: { webhookId: this.webhookId }, query: { pageSize: 1, ...(eventType === undefined ? {} : { eventType }) } });
    return Number(bodyOf(page).total);
  }

  async close(): Promise<void> {
    await this.ctx.call('deleteWebhookEndpoint', { path: { webhookId: this.webhookId } });
  }
}

/** The statuses the walk reaches for each kind of record on a target that sets a maxTransactionAmount (for tests). */
export function reachableStatuses(spec: Spec): Record<string, string[]> {
  return Object.fromEntries(KINDS.flatMap((kind) => {
    const machine = machineOf(spec, kind.machine);
    return machine ? [[`${kind.machine}:${kind.type}`, [...routes(machine, kind, spec, true).keys()].sort()]] : [];
  }));
}

/** How the walk produces each declining first row, per kind of record: `card <pan>` or `over the limit` (for tests). */
export function decliningRoutes(spec: Spec): Record<string, string[]> {
  return Object.fromEntries(KINDS.flatMap((kind) => {
    const machine = machineOf(spec, kind.machine);
    return machine ? [[`${kind.machine}:${kind.type}`, decliningFirstRows(machine, kind, spec, true)
      .map((r) => `${r.to} ${(r.responseCodes ?? []).join('/')} by ${r.magic === undefined ? 'an amount over the limit' : `card ${r.magic}`}`)]] : [];
  }));
}

export function machineChecks(spec: Spec): Check[] {
  return KINDS.flatMap((kind): Check[] => {
    const machine = machineOf(spec, kind.machine);
    if (!machine || !spec.operations.has(kind.create)) return [];
    return [{
      id: `machines/${kind.machine}:${kind.type}`,
      group: 'transitions',
      // The walk relies on the sandbox's network simulation and magic values (designed): --strict-seed skips it.
      title: `${kind.type}: from every status the suite can reach, each command of ${kind.machine}'s table answers and moves as the table says`,
      tags: [kind.create, 'transitions'],
      designed: true,
      run: async (ctx) => {
        const records = new Records(ctx);
        const events = await EventLog.open(ctx);
        if (!events) throw new CheckFailure('a webhook endpoint to watch the events could not be created (createWebhookEndpoint did not answer 200 with an id)');
        // A status reached only by an amount above the limit is not walked on a target that sets no limit.
        const limit = await records.limit();
        const reachable = routes(machine, kind, ctx.spec, limit !== undefined);
        // Commands on an existing record: the operation triggers of rows that do not start from `initial`.
        const commands = [...new Set(machine.rows.filter((r) => !r.from.includes('initial') && ctx.spec.operations.has(r.trigger) && applies(r, kind)).map((r) => r.trigger))];
        const failures: [string, Exchange | undefined][] = [];
        let tried = 0;
        for (const [status, route] of reachable) {
          // A record a refused command left in the status serves the next command (one clock advance, not one a command).
          let kept: string | undefined;
          for (const command of commands) {
            const transactionId = kept ?? await records.at(kind, machine, route, events);
            kept = undefined;
            if (transactionId === undefined) throw new CheckSkipped('the target has no sandbox network simulation or clock (designed)');
            const row = machine.rows.find((r) => r.trigger === command && r.from.includes(status) && applies(r, kind));
            // A permitted row's event appears once; a refused command emits nothing at all.
            const watched = row?.event ?? undefined;
            const before = await events.total(watched);
            const answer = await ctx.call(command, await records.request(command, transactionId));
            tried++;
            const code = String(bodyOf(answer).responseCode);
            const now = await records.status(transactionId, machine);
            const expected = row ? (row.to === 'same' ? status : row.to) : status;
            const codes = row ? (row.responseCodes ?? ['000']) : [machine.refusalCode];
            if (answer.response?.status !== 200 || !codes.includes(code) || now !== expected) {
              failures.push([`${command} on a ${status} ${kind.type} (${row ? 'permitted' : 'forbidden'}): expected 200, responseCode ${codes.join('/')} and ${expected}; got ${String(answer.response?.status)}, ${code} and ${now}`, answer]);
            }
            if (!row && now === status) kept = transactionId;
            const emitted = (await events.total(watched)) - before;
            const wanted = watched === undefined ? 0 : 1;
            if (emitted !== wanted) {
              failures.push([`${command} on a ${status} ${kind.type}: ${watched === undefined ? 'no event' : `one ${watched} event`} expected, ${String(emitted)} ${watched ?? 'event(s)'} seen`, answer]);
            }
          }
        }
        // Each network or clock row, and each declining first row, on its own where no route followed it.
        const keyOf = (r: Row): string => `${r.trigger} ${r.to} ${r.from.join('|')} ${(r.responseCodes ?? []).join('|')}`;
        const followed = new Set([...reachable.values()].flat().map(keyOf));
        const alone = [
          ...decliningFirstRows(machine, kind, ctx.spec, limit !== undefined),
          ...machine.rows.filter((r) => applies(r, kind) && (r.trigger in SIMULATED || r.trigger in CLOCK)),
        ].filter((r) => !followed.has(keyOf(r)));
        for (const row of alone) {
          for (const from of row.from) {
            const route = from === 'initial' ? [] : reachable.get(from);
            if (route === undefined) continue;
            tried++;
            try {
              if ((await records.at(kind, machine, [...route, { ...row, from: [from] }], events)) === undefined) throw new CheckSkipped('the target has no sandbox network simulation or clock (designed)');
            } catch (error) {
              if (!(error instanceof CheckFailure)) throw error;
              failures.push([`${row.trigger} from ${from}: ${error.expected}`, error.exchange]);
            }
          }
        }
        await events.close();
        if (tried === 0) throw new CheckSkipped(`no status of ${kind.type} could be reached`);
        failWithAll(failures);
      },
    }];
  });
}
