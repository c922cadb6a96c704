// HTTP of the payment terminals: register, list and read (the sandbox's paper report is in sandbox.ts).
import type { TerminalsHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import * as terminals from '../services/terminals.ts';

export const terminalsHandlers = {
  async registerTerminal(input: op.RegisterTerminalInput, context: ServerContext): Promise<op.RegisterTerminalResult> {
    return { status: 200, body: await terminals.registerTerminal(context.merchant(), input.body) };
  },
  async listTerminals(input: op.ListTerminalsInput, context: ServerContext): Promise<op.ListTerminalsResult> {
    return { status: 200, body: await terminals.listTerminals(context.merchant(), input.query) };
  },
  async getTerminal(input: op.GetTerminalInput, context: ServerContext): Promise<op.GetTerminalResult> {
    return { status: 200, body: await terminals.getTerminal(context.merchant(), input.path.terminalId) };
  },
} satisfies TerminalsHandlers<ServerContext>;
