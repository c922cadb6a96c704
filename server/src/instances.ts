// What the server keeps in memory from start to stop, made once by createInstances (main.ts gives the same
// ones to the app and the worker; createApp makes its own when given none) and reached by services through
// their dependencies (Deps.instances), never through module-level state.
import type { ServerConfig } from './config.ts';
import type { Database } from './db/knex.ts';
import { KeyStates, type KeyState } from './platform/key-state.ts';
import type { Logger } from './platform/log.ts';
import { Streams } from './platform/streams.ts';
import type { Clock } from './platform/time.ts';
import { tapToPayKey } from './services/devices.ts';
import { InvoicePdfs } from './services/invoice-pdf.ts';
import { sandboxNotifier, type NotifierFactory } from './services/notifier.ts';
import { PaymentSetups } from './services/payment-setups.ts';
import { signingKey } from './services/signing-keys.ts';
import { ThrottleSweeps } from './services/throttle.ts';

export interface Instances {
  /** API-key states kept between requests, and the announcement of a change of one (platform/key-state.ts). */
  readonly keyStates: KeyStates<KeyState>;
  /** The notifier of a transaction: the sandbox's, which records and sends nothing, unless another is given. */
  readonly notifierFor: NotifierFactory;
  /** Rendered invoice PDFs kept (services/invoice-pdf.ts). */
  readonly pdfs: InvoicePdfs;
  /** Merchants' payment setups kept (services/payment-setups.ts). */
  readonly paymentSetups: PaymentSetups;
  /** The event streams open: a stopping server ends them. */
  readonly streams: Streams;
  /** The key of tap-to-pay tokens, derived from the environment's signing key. */
  readonly tapToPayKey: Uint8Array;
  /** When the throttle's counters were last swept. */
  readonly throttleSweeps: ThrottleSweeps;
  /** Stops what runs beside requests (on PostgreSQL, the API-key state listener), before the database closes. */
  stop: () => Promise<void>;
}

export interface InstanceOptions {
  readonly db: Database;
  readonly config: ServerConfig;
  readonly log: Logger;
  readonly wall: Clock;
  /** Another notifier (a real e-mail or SMS provider). */
  readonly notifierFor?: NotifierFactory;
}

export async function createInstances(options: InstanceOptions): Promise<Instances> {
  const key = await signingKey(options.db, options.config.environment, options.wall);
  const keyStates = await KeyStates.start<KeyState>(options.db, options.log);
  return {
    keyStates,
    notifierFor: options.notifierFor ?? sandboxNotifier,
    pdfs: new InvoicePdfs(),
    paymentSetups: new PaymentSetups(),
    streams: new Streams(),
    tapToPayKey: tapToPayKey(key, options.config.environment),
    throttleSweeps: new ThrottleSweeps(),
    stop: () => keyStates.stop(),
  };
}
