// The terminal paper machine walked from the spec's table (`x-state-machine` on TerminalPaperStatus): a terminal
// registered through the creation row (its event once), every status the table's reports reach, and from each,
// every status of the enumeration reported through the sandbox control. A permitted report answers 200, leaves
// the row's status and emits the row's event exactly once; a forbidden one answers 400 with the errorCode the
// table names, changes nothing and emits nothing. A new row or status in the spec is a new case without new code.
import { OperationId } from '@pgw/client/operations';
import { CheckFailure, CheckSkipped, bodyOf, expectStatus, failWithAll, type Check } from '../check.ts';
import type { Exchange } from '../http.ts';
import type { Spec } from '../spec.ts';
import { machineOf, type Row } from './machine-tables.ts';
import { EventLog } from './event-log.ts';

const SCHEMA = 'TerminalPaperStatus';
/** The field of the terminal (as read, and as the report sends it) that holds the machine's status. */
const FIELD = 'paperStatus';

/** The statuses of a string enumeration, in the document's order. */
function statusesOf(spec: Spec): string[] {
  const schemas = spec.document.components as { schemas?: Record<string, { enum?: unknown[] }> } | undefined;
  return (schemas?.schemas?.[SCHEMA]?.enum ?? []).map(String);
}

export function terminalMachineChecks(spec: Spec): Check[] {
  const machine = machineOf(spec, SCHEMA);
  const creation = machine?.rows.find((r) => r.from.includes('initial') && spec.operations.has(r.trigger));
  if (!machine || !creation) return [];
  return [{
    id: `machines/${SCHEMA}:Terminal`,
    group: 'transitions',
    title: `Terminal: registered through ${creation.trigger}, and from every status the reports reach, each status reported answers, moves and emits as ${SCHEMA}'s table says`,
    tags: ['Terminals', creation.trigger, 'transitions'],
    // The reports are a sandbox control (designed).
    designed: true,
    run: async (given) => {
      const events = await EventLog.open(given);
      if (!events) throw new CheckFailure('a webhook endpoint to watch the events could not be created');
      const ctx = events.watching(given);
      try {
        const statuses = statusesOf(ctx.spec);
        const commands = [...new Set(machine.rows.filter((r) => !r.from.includes('initial') && ctx.spec.operations.has(r.trigger)).map((r) => r.trigger))];
        const rowOf = (command: string, from: string, to: string): Row | undefined =>
          machine.rows.find((r) => r.trigger === command && r.from.includes(from) && (r.to === to || (r.to === 'same' && from === to)));
        // The shortest way to each status by permitted reports.
        const routes = new Map<string, { command: string; to: string }[]>([[creation.to, []]]);
        const queue = [creation.to];
        while (queue.length > 0) {
          const at = queue.shift() ?? '';
          for (const command of commands) {
            for (const to of statuses.filter((t) => !routes.has(t) && rowOf(command, at, t) !== undefined)) {
              routes.set(to, [...(routes.get(at) ?? []), { command, to }]);
              queue.push(to);
            }
          }
        }
        const failures: [string, Exchange | undefined][] = [];
        const status = async (terminalId: string): Promise<string> => {
          const read = await ctx.call(OperationId.getTerminal, { path: { terminalId } });
          expectStatus(read, 200, OperationId.getTerminal);
          return String(bodyOf(read)[FIELD]);
        };
        const report = (command: string, terminalId: string, to: string): Promise<Exchange> =>
          ctx.call(ctx.spec.operation(command), { path: { terminalId }, body: { [FIELD]: to } });
        /** A new terminal (its creation row's event checked once), then the route's reports. */
        let creationChecked = false;
        const reach = async (route: { command: string; to: string }[]): Promise<string> => {
          const watched = creationChecked ? undefined : creation.event ?? undefined;
          const before = watched === undefined ? 0 : await events.total(watched);
          const made = await ctx.call(ctx.spec.operation(creation.trigger), { body: { serialNumber: ctx.unique('MACH').toUpperCase(), model: 'Machine walk' } });
          expectStatus(made, 200, creation.trigger);
          const terminalId = String(bodyOf(made).terminalId);
          if (watched !== undefined) {
            const emitted = (await events.total(watched)) - before;
            if (emitted !== 1) failures.push([`${creation.trigger}: one ${watched} event expected, ${String(emitted)} seen`, made]);
            creationChecked = true;
          }
          const created = await status(terminalId);
          if (created !== creation.to) failures.push([`${creation.trigger} left the terminal ${created}, not ${creation.to}`, made]);
          for (const step of route) {
            const moved = await report(step.command, terminalId, step.to);
            if (moved.response?.status === 404 && ctx.spec.operation(step.command).designed) throw new CheckSkipped('the target has no sandbox terminal control (designed)');
            expectStatus(moved, 200, `${step.command} ${step.to} on the way`);
          }
          return terminalId;
        };
        let tried = 0;
        for (const [from, route] of routes) {
          for (const command of commands) {
            for (const to of statuses) {
              const terminalId = await reach(route);
              const row = rowOf(command, from, to);
              const watched = row?.event ?? undefined;
              const before = await events.total(watched);
              const answer = await report(command, terminalId, to);
              if (answer.response?.status === 404 && ctx.spec.operation(command).designed) throw new CheckSkipped('the target has no sandbox terminal control (designed)');
              tried++;
              const now = await status(terminalId);
              const emitted = (await events.total(watched)) - before;
              if (row) {
                if (answer.response?.status !== 200 || now !== to) failures.push([`${command} ${to} on a ${from} terminal (permitted): expected 200 and ${to}; got ${String(answer.response?.status)} and ${now}`, answer]);
              } else {
                const wanted = machine.errorCodes[command];
                if (answer.response?.status !== 400 || bodyOf(answer).errorCode !== wanted || now !== from) {
                  failures.push([`${command} ${to} on a ${from} terminal (forbidden): expected 400 ${String(wanted)} and ${from}; got ${String(answer.response?.status)} ${String(bodyOf(answer).errorCode)} and ${now}`, answer]);
                }
              }
              if (emitted !== (watched === undefined ? 0 : 1)) failures.push([`${command} ${to} on a ${from} terminal: ${watched === undefined ? 'no event' : `one ${watched}`} expected, ${String(emitted)} seen`, answer]);
            }
          }
        }
        await events.settle();
        failures.push(...events.disagreements);
        if (tried === 0) throw new CheckSkipped('no terminal status could be reached');
        failWithAll(failures);
      } finally {
        await events.close();
      }
    },
  }];
}
