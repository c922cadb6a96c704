// HTTP of the sandbox controls: the merchant's clock, its advance, and forced network outcomes. A
// production server never routes here (app.ts answers 404 first).
import type { SandboxHandlers } from '../../../generated/handlers.ts';
import type * as op from '../../../generated/operations.ts';
import type { ServerContext } from '../platform/context.ts';
import * as sandbox from '../services/sandbox.ts';

export const sandboxHandlers = {
  async getSandboxClock(_input: op.GetSandboxClockInput, context: ServerContext): Promise<op.GetSandboxClockResult> {
    return { status: 200, body: await sandbox.getClock(context, context.merchantId()) };
  },
  async advanceSandboxClock(input: op.AdvanceSandboxClockInput, context: ServerContext): Promise<op.AdvanceSandboxClockResult> {
    return { status: 200, body: await sandbox.advanceClock(context, context.merchantId(), input.body.seconds) };
  },
  async simulateTransaction(input: op.SimulateTransactionInput, context: ServerContext): Promise<op.SimulateTransactionResult> {
    return { status: 200, body: await sandbox.simulate(context, context.merchantId(), input.path.transactionId, input.body) };
  },
} satisfies SandboxHandlers<ServerContext>;
