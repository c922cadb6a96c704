// The terminal family of the engine: the spec's paper machine (x-state-machine on TerminalPaperStatus) over the
// terminals table. Registration is the creation row (terminal.added); a paper report is a move that also
// records when the terminal was last seen. No history table: the moves that matter are the rows' events.
import { terminalPaperStateMachine, type TerminalPaperTransition } from '@pgw/client/state-machines';
import type { components } from '@pgw/client/types';
import type { WebhookEventName } from '@pgw/client/webhooks';
import { ApiError } from '../platform/errors.ts';
import type { EventData } from '../platform/outbox.ts';
import { iso } from '../platform/time.ts';
import * as repo from '../repositories/terminals.ts';
import type { TerminalRecord } from '../repositories/terminals.ts';
import * as engine from './engine.ts';

export type TerminalView = components['schemas']['Terminal'];

/** A terminal to register: what registerTerminal was given, its serial number in capitals. */
export interface NewTerminal {
  readonly id: string;
  readonly merchantId: string;
  readonly serialNumber: string;
  readonly model: string;
  readonly name: string | null;
}

/** The terminal as the API and its events show it. */
export const terminalView = (t: TerminalRecord): TerminalView => ({
  terminalId: t.id, serialNumber: t.serialNumber, model: t.model, name: t.name, paperStatus: t.paperStatus, createdOn: t.createdOn, lastSeenAt: t.lastSeenAt,
});

export const duplicateSerial = (serialNumber: string): ApiError =>
  new ApiError('duplicate_terminal_serial', { details: `A terminal of this merchant already has the serial number ${serialNumber}.` });

// A move carries nothing besides its row: the status is the row's, the time the move's (the report's).
const terminals: engine.Adapter<TerminalRecord, TerminalPaperTransition, null, engine.InTransaction, NewTerminal> = {
  table: 'terminals',
  fromRow: (row) => repo.recordOf(row as unknown as repo.Row),
  status: (record) => record.paperStatus,
  type: () => null,
  merchantOf: (record) => record.merchantId,
  initial: () => ({ type: null }),
  insert: async (db, fresh, row, _change, at) => {
    const record: TerminalRecord = { ...fresh, paperStatus: row.to, createdOn: iso(at), lastSeenAt: null };
    // The unique index refuses a serial number the merchant has; the caller's transaction then writes nothing.
    if (!(await repo.insertTerminal(db, record))) throw duplicateSerial(fresh.serialNumber);
    return record;
  },
  apply: async (db, moves, at) => {
    const afters: TerminalRecord[] = [];
    for (const { record, row } of moves) {
      const after: TerminalRecord = { ...record, paperStatus: row.to, lastSeenAt: iso(at) };
      // The record was locked when it was read, so only a caller that did not lock it gets here.
      if (!(await repo.reportPaper(db, after))) throw new ApiError('internal_error', { details: `terminal ${record.id} changed under a transition` });
      afters.push(after);
    }
    return afters;
  },
  remove: () => Promise.reject(new ApiError('internal_error', { details: 'a terminal is never removed by a transition' })),
  history: () => Promise.resolve(),
  // terminal.added and terminal.out_of_paper carry the terminal as getTerminal shows it after the move.
  // eslint-disable-next-line @typescript-eslint/require-await -- the adapter's contract is a promise
  eventData: async <E extends WebhookEventName>(_scope: engine.InTransaction, _event: E, after: TerminalRecord): Promise<EventData<E>> =>
    terminalView(after) as EventData<E>,
};

/** The terminal paper machine over the terminals table. */
export const terminalFamily = engine.family(terminalPaperStateMachine, terminals);
