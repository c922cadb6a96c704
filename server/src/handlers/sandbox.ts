// HTTP of the sandbox controls: the merchant's clock, its advance, forced network outcomes, the event stream
// (server-sent events), disposable sandbox merchants, the reset, a terminal's paper report and a payment link paid
// as a customer would. A production server never routes here (app.ts answers 404 first).
import type { SandboxHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import type { Logger } from '../platform/log.ts';
import { openEventStream, type StreamItem } from '../services/event-stream.ts';
import * as sandbox from '../services/sandbox.ts';
import * as sandboxes from '../services/sandboxes.ts';
import * as terminals from '../services/terminals.ts';
import { paySandboxQuickPayment } from '../services/quick-payment-payments.ts';
import { envelope } from '../services/webhook-delivery.ts';

/**
 * The stream as server-sent events: `id:` the event id, `event:` its type, `data:` the webhook envelope (one
 * line: JSON has no raw newlines). A failure after the first byte cannot become an error response any more:
 * it is logged and the stream ends, and the client reconnects with Last-Event-ID.
 */
async function* serverSentEvents(items: AsyncIterable<StreamItem>, log: Logger, done: () => void): AsyncGenerator<string> {
  try {
    for await (const item of items) {
      if (item.kind === 'start') {
        // The first chunk sends the headers at once. `retry` is the reconnection delay an EventSource uses;
        // an `id:` without data sets the client's last event id without an event, so a client that drops
        // before the first event resumes from here instead of from "now" (and loses nothing in between).
        yield `retry: 2000\n${item.afterId === undefined ? '' : `id: ${item.afterId}\n`}: connected\n\n`;
      } else {
        yield item.kind === 'heartbeat' ? ': keep-alive\n\n' : `id: ${item.event.id}\nevent: ${item.event.type}\ndata: ${envelope(item.event)}\n\n`;
      }
    }
  } catch (error) {
    log.warn({ err: error }, 'event stream ended by an error');
  } finally {
    done();
  }
}

/** The calling partner; a merchant's key answers 403 partner_key_required (it cannot create merchants). */
function partnerOf(context: ServerContext): string {
  // The router authenticated the caller; a token route has no principal, and this is not one.
  if (!context.principal) throw new ApiError('internal_error');
  if (context.principal.merchantId !== null) throw new ApiError('partner_key_required');
  return context.principal.partnerId;
}

export const sandboxHandlers = {
  async getSandboxClock(_input: op.GetSandboxClockInput, context: ServerContext): Promise<op.GetSandboxClockResult> {
    return { status: 200, body: await sandbox.getClock(context.merchant()) };
  },
  async advanceSandboxClock(input: op.AdvanceSandboxClockInput, context: ServerContext): Promise<op.AdvanceSandboxClockResult> {
    return { status: 200, body: await sandbox.advanceClock(context.merchant(), input.body.seconds) };
  },
  async simulateTransaction(input: op.SimulateTransactionInput, context: ServerContext): Promise<op.SimulateTransactionResult> {
    return { status: 200, body: await sandbox.simulate(context.merchant(), input.path.transactionId, input.body) };
  },
  async streamSandboxEvents(input: op.StreamSandboxEventsInput, context: ServerContext): Promise<op.StreamSandboxEventsResult> {
    const tracked = context.instances.streams.track(context.disconnected());
    try {
      // A partner's token without x-merchant-id follows all its merchants (a new sandbox merchant's creation too).
      const partnerId = context.partnerWide();
      const owner = partnerId !== null ? { partnerId } : { merchantId: context.merchantId() };
      const items = await openEventStream(context, owner, { types: input.query.types, lastEventId: input.headers['last-event-id'], signal: tracked.signal });
      // The generated result types carry `body`; a stream carries `stream` (the router writes it as it comes).
      return {
        status: 200, contentType: 'text/event-stream',
        // Proxies that buffer (nginx) are asked not to; no-store is already on every response.
        headers: { 'X-Accel-Buffering': 'no' },
        stream: serverSentEvents(items, context.log, tracked.done),
      } as unknown as op.StreamSandboxEventsResult;
    } catch (error) {
      tracked.done();
      throw error;
    }
  },
  async listSandboxMerchants(input: op.ListSandboxMerchantsInput, context: ServerContext): Promise<op.ListSandboxMerchantsResult> {
    return { status: 200, body: await sandboxes.listSandboxes(context, partnerOf(context), input.query) };
  },
  async createSandboxMerchant(input: op.CreateSandboxMerchantInput, context: ServerContext): Promise<op.CreateSandboxMerchantResult> {
    return { status: 200, body: await sandboxes.createSandbox(context, partnerOf(context), input.body) };
  },
  async deleteSandboxMerchant(input: op.DeleteSandboxMerchantInput, context: ServerContext): Promise<op.DeleteSandboxMerchantResult> {
    await sandboxes.deleteSandbox(context, partnerOf(context), input.path.merchantId);
    return { status: 200 };
  },
  async setSandboxTerminalPaperStatus(input: op.SetSandboxTerminalPaperStatusInput, context: ServerContext): Promise<op.SetSandboxTerminalPaperStatusResult> {
    return { status: 200, body: await terminals.reportPaperStatus(context.merchant(), input.path.terminalId, input.body.paperStatus) };
  },
  async paySandboxQuickPayment(input: op.PaySandboxQuickPaymentInput, context: ServerContext): Promise<op.PaySandboxQuickPaymentResult> {
    return { status: 200, body: await paySandboxQuickPayment(context.merchant(), input.path.quickPaymentId, input.query) };
  },
  async resetSandbox(_input: op.ResetSandboxInput, context: ServerContext): Promise<op.ResetSandboxResult> {
    return { status: 200, body: await sandboxes.resetSandbox(context.merchant()) };
  },
} satisfies SandboxHandlers<ServerContext>;
