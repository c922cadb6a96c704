// The notifications table (Knex only): the outbox of messages to customers that the sandbox notifier
// records (services/notifier.ts).
import type { InvoiceNotificationTemplateType, InvoiceNotificationType } from '@pgw/client/enums';
import type { Knex } from 'knex';

export interface NotificationValue {
  id: string;
  merchantId: string;
  invoiceId: string | null;
  channelId: InvoiceNotificationType;
  templateTypeId: InvoiceNotificationTemplateType;
  target: string;
  subject: string | null;
  body: string;
  createdOn: string;
}

export async function insertNotification(db: Knex, n: NotificationValue): Promise<void> {
  await db('notifications').insert({
    id: n.id,
    merchant_id: n.merchantId,
    invoice_id: n.invoiceId,
    channel_id: n.channelId,
    template_type_id: n.templateTypeId,
    target: n.target,
    subject: n.subject,
    body: n.body,
    created_on: n.createdOn,
  });
}
