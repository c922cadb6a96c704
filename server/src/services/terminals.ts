// Payment terminals: registration (the paper machine's creation row, terminal.added), the list and the read,
// and the paper status a terminal reports (the sandbox control makes it report), each change through the one
// engine in one transaction with its event.
import { newId } from '../platform/ids.ts';
import { terminalPaperStateMachine } from '@pgw/client/state-machines';
import { ApiError, notFound } from '../platform/errors.ts';
import type { ListQuery } from '../platform/paging.ts';
import type { Scope } from '../platform/scope.ts';
import { withTransaction } from '../platform/transaction.ts';
import * as repo from '../repositories/terminals.ts';
import type { PaperStatus } from '../repositories/terminals.ts';
import * as engine from './engine.ts';
import { terminalFamily, terminalView, type TerminalView } from './terminal-machine.ts';

export interface Registration {
  readonly serialNumber: string;
  readonly model: string;
  readonly name?: string | null;
}

/** Registers a terminal with a full roll (the machine's creation row) and emits terminal.added with it. */
export async function registerTerminal(scope: Scope, registration: Registration): Promise<TerminalView> {
  const fresh = {
    id: newId(), merchantId: scope.merchantId,
    // Serial numbers are compared without letter case: the pattern allows ASCII only, so capitals are one form.
    serialNumber: registration.serialNumber.toUpperCase(),
    model: registration.model,
    name: registration.name ?? null,
  };
  const now = scope.clock.now();
  const { record } = await withTransaction(scope.db, (tx) => engine.create({ db: tx }, terminalFamily, fresh, 'registerTerminal', now, null));
  return terminalView(record);
}

export async function getTerminal(scope: Scope, id: string): Promise<TerminalView> {
  const found = await repo.findTerminal(scope.db, scope.merchantId, id.toLowerCase());
  if (!found) throw notFound(id, 'terminal');
  return terminalView(found);
}

export async function listTerminals(scope: Scope, list: ListQuery & { paperStatus?: PaperStatus }): Promise<{ items: TerminalView[]; total: number }> {
  const { items, total } = await repo.listTerminals(scope.db, scope.merchantId, list);
  return { items: items.map(terminalView), total };
}

/**
 * The terminal reports its paper status (in the sandbox, on request): the machine's row from its status to the
 * reported one, at the merchant's business time; a report the table has no row for answers the machine's
 * refusal and changes nothing.
 */
export async function reportPaperStatus(scope: Scope, id: string, reported: PaperStatus): Promise<TerminalView> {
  const now = scope.clock.now();
  return withTransaction(scope.db, async (tx) => {
    const terminal = await engine.lock({ db: tx }, terminalFamily, { merchant_id: scope.merchantId, id: id.toLowerCase() });
    if (!terminal) throw notFound(id, 'terminal');
    const after = await engine.transition({ db: tx }, terminalFamily, terminal, 'setSandboxTerminalPaperStatus', now, null, { to: reported });
    if (!after) {
      throw new ApiError(terminalPaperStateMachine.refusal.errorCodes.setSandboxTerminalPaperStatus, {
        details: `The terminal's paper is ${terminal.paperStatus}: it cannot report ${reported} (an Empty roll is replaced by a full one, Ok).`,
        entityId: terminal.id,
      });
    }
    return terminalView(after);
  });
}
