// The transaction state machines, walked from the spec's own tables (`x-state-machine` on the status schemas):
// for each kind of record, every status the table lets the suite reach (by operations, and by the sandbox's
// network simulation where the target serves it) and every command of the table tried there: a permitted one
// answers its responseCode, reaches its status and emits its event; a forbidden one answers the machine's
// refusal, changes nothing and emits nothing. Where a command has several rows from a status, picked by its
// amount (a partial refund, or one of all that remains), each row is tried with its amount on a record of its
// own. A new row or status in the spec is a new case without new code.
import { OperationId } from '@pgw/client/operations';
import { CheckFailure, failWithAll, CheckSkipped, bodyOf, expectStatus, type Check, type CheckContext } from '../check.ts';
import type { CallOptions, Exchange } from '../http.ts';
import { approvingCard, paymentProcessors, testCard } from '../fixtures.ts';
import { SpecReader } from '../negative-cases.ts';
import type { Spec } from '../spec.ts';
import { EventLog } from './event-log.ts';
import { CLOCK, KINDS, SIMULATED, applies, decliningFirstRows, machineOf, routes, type Kind, type Machine, type Row } from './machine-tables.ts';

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

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
    this.configured ??= this.ctx.call(OperationId.getPaymentConfiguration, {}).then((read) => {
      const max = bodyOf(read).maxTransactionAmount;
      return typeof max === 'number' ? max : undefined;
    });
    return this.configured;
  }

  /**
   * The request of a trigger on a record: its example, the record's id, a small amount (above the limit for
   * `overLimit`; for a row picked by its amount, a cent for a part of what remains, none for all of it).
   */
  async request(op: string, transactionId: string | undefined, how: Pick<Row, 'magic' | 'overLimit' | 'amount'> = {}): Promise<CallOptions> {
    const pan = how.magic ?? approvingCard;
    const limit = how.overLimit === true ? await this.limit() : undefined;
    const amount = limit === undefined ? 20 : Math.floor(limit) + 1;
    const found = this.reader.operation(op);
    const example = found ? this.reader.jsonBody(found.op)?.example : undefined;
    const body: JsonObject = isObject(example) ? { ...example } : {};
    if ('amount' in body) body.amount = transactionId === undefined ? amount : 1;
    // Before settlement a card refund voids the whole transaction: no amount (the table's Captured to Voided row).
    if (op === OperationId.refundCardTransaction) delete body.amount;
    // A cent: less than what remains of any record the walk refunds (made for 20, captured for 1, refunded a cent at a time).
    if (how.amount === 'partial') body.amount = 0.01;
    if (how.amount === 'remainder') delete body.amount;
    if ('paymentProcessorId' in body || transactionId === undefined) body.paymentProcessorId = await this.processor(op.includes('Ach') ? 'ach' : 'card');
    if (op === OperationId.authorizeCard || op === OperationId.createCardSale) {
      // A card entered now: the examples name a customer and a stored card of the spec's example, not the target's.
      return { body: { amount, paymentProcessorId: await this.processor('card'), card: testCard(pan) } };
    }
    return { ...(transactionId === undefined ? {} : { path: { transactionId } }), ...(found && this.reader.jsonBody(found.op) ? { body } : {}) };
  }

  async status(transactionId: string, machine: Machine): Promise<string> {
    const read = await this.ctx.call(OperationId.getTransactionStatus, { path: { transactionId } });
    expectStatus(read, 200, OperationId.getTransactionStatus);
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
        exchange = await this.ctx.call(this.ctx.spec.operation(row.trigger), await this.request(row.trigger, transactionId, row));
      } else if (row.trigger in CLOCK) {
        exchange = await this.ctx.call(OperationId.advanceSandboxClock, { body: { seconds: CLOCK[row.trigger] ?? 0 } });
        if (exchange.response?.status === 404 && this.ctx.spec.operation(OperationId.advanceSandboxClock).designed) return undefined;
      } else {
        exchange = await this.ctx.call(OperationId.simulateTransaction, { path: { transactionId: transactionId ?? '' }, body: SIMULATED[row.trigger] ?? {} });
        if (exchange.response?.status === 404 && this.ctx.spec.operation(OperationId.simulateTransaction).designed) return undefined;
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
      run: async (given) => {
        const events = await EventLog.open(given);
        if (!events) throw new CheckFailure('a webhook endpoint to watch the events could not be created (createWebhookEndpoint did not answer 200 with an id)');
        const ctx = events.watching(given);
        const records = new Records(ctx);
        try {
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
              // Every row of the command from the status (several when its amount picks one), or its refusal.
              const rows = machine.rows.filter((r) => r.trigger === command && r.from.includes(status) && applies(r, kind));
              for (const row of rows.length > 0 ? rows : [undefined]) {
                const transactionId = kept ?? await records.at(kind, machine, route, events);
                kept = undefined;
                if (transactionId === undefined) throw new CheckSkipped('the target has no sandbox network simulation or clock (designed)');
                // A permitted row's event appears once; a refused command emits nothing at all.
                const watched = row?.event ?? undefined;
                const before = await events.total(watched);
                const answer = await ctx.call(ctx.spec.operation(command), await records.request(command, transactionId, row ?? {}));
                tried++;
                const code = String(bodyOf(answer).responseCode);
                const now = await records.status(transactionId, machine);
                const expected = row ? (row.to === 'same' ? status : row.to) : status;
                const codes = row ? (row.responseCodes ?? ['000']) : [machine.refusalCode];
                const what = `${command}${row?.amount === undefined ? '' : ` (${row.amount === 'partial' ? 'a part of what remains' : 'no amount: all that remains'})`} on a ${status} ${kind.type}`;
                if (answer.response?.status !== 200 || !codes.includes(code) || now !== expected) {
                  failures.push([`${what} (${row ? 'permitted' : 'forbidden'}): expected 200, responseCode ${codes.join('/')} and ${expected}; got ${String(answer.response?.status)}, ${code} and ${now}`, answer]);
                }
                if (!row && now === status) kept = transactionId;
                const emitted = (await events.total(watched)) - before;
                const wanted = watched === undefined ? 0 : 1;
                if (emitted !== wanted) {
                  failures.push([`${what}: ${watched === undefined ? 'no event' : `one ${watched} event`} expected, ${String(emitted)} ${watched ?? 'event(s)'} seen`, answer]);
                }
              }
            }
          }
          // Each network or clock row, and each declining first row, on its own where no route followed it.
          const keyOf = (r: Row): string => `${r.trigger} ${r.to} ${r.from.join('|')} ${(r.responseCodes ?? []).join('|')}`;
          const followed = new Set([...reachable.values()].flat().map(keyOf));
          const alone = [
            ...decliningFirstRows(machine, kind, limit !== undefined),
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
          await events.settle();
          failures.push(...events.disagreements);
          if (tried === 0) throw new CheckSkipped(`no status of ${kind.type} could be reached`);
          failWithAll(failures);
        } finally {
          await events.close();
        }
      },
    }];
  });
}
