// Delivery of messages to customers (e-mail, SMS) behind one interface. The sandbox implementation records
// each message in the notifications table and delivers nothing; a real e-mail or SMS provider plugs in with
// useNotifier() and implements the same send().
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { insertNotification } from '../repositories/notifications.ts';

/** InvoiceNotificationType: 1 Email, 2 Sms. */
export type Channel = 1 | 2;
/** InvoiceNotificationTemplateType: 1 InvoicePublished, 2 PaymentReceipt, 3 PaymentFailed. */
export type TemplateType = 1 | 2 | 3;

export interface NotificationMessage {
  merchantId: string;
  invoiceId: string | null;
  channel: Channel;
  template: TemplateType;
  /** An e-mail address (Email) or an E.164 phone number (Sms). */
  to: string;
  /** The e-mail's subject; null for an SMS. */
  subject: string | null;
  text: string;
  createdOn: string;
}

export interface Notifier {
  /** Sends (or queues) the message; returns the notification's id, which the invoice history keeps. */
  send(message: NotificationMessage): Promise<string>;
}

/** Records each message in the notifications table, in the caller's transaction; delivers nothing. */
export class SandboxNotifier implements Notifier {
  constructor(private readonly db: Knex) {}

  async send(message: NotificationMessage): Promise<string> {
    const id = randomUUID();
    await insertNotification(this.db, {
      id,
      merchantId: message.merchantId,
      invoiceId: message.invoiceId,
      channelId: message.channel,
      templateTypeId: message.template,
      target: message.to,
      subject: message.subject,
      body: message.text,
      createdOn: message.createdOn,
    });
    return id;
  }
}

/** Makes the notifier of one database transaction. */
export type NotifierFactory = (db: Knex) => Notifier;

let factory: NotifierFactory = (db) => new SandboxNotifier(db);

/** The notifier for a transaction: the sandbox one unless another was plugged in. */
export const notifierFor = (db: Knex): Notifier => factory(db);

/** Plugs in another notifier (a real provider); returns the previous factory. */
export function useNotifier(next: NotifierFactory): NotifierFactory {
  const previous = factory;
  factory = next;
  return previous;
}
