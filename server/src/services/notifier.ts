// Delivery of messages to customers (e-mail, SMS) behind one interface. The sandbox implementation records
// each message in the notifications table and delivers nothing; a real e-mail or SMS provider implements the
// same send() and is plugged in at start (instances.ts: the server's `notifierFor`).
import { newId } from '../platform/ids.ts';
import type { Knex } from 'knex';
import type { InvoiceNotificationTemplateType, InvoiceNotificationType } from '@pgw/client/enums';
import { insertNotification } from '../repositories/notifications.ts';

/** The channel of a message (InvoiceNotificationType). */
export type Channel = InvoiceNotificationType;
/** The message (InvoiceNotificationTemplateType). */
export type TemplateType = InvoiceNotificationTemplateType;

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
    const id = newId();
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

/** The sandbox's notifier: the server's unless another is plugged in at start. */
export const sandboxNotifier: NotifierFactory = (db) => new SandboxNotifier(db);
