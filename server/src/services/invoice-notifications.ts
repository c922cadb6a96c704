// The invoice notification (template InvoicePublished), sent through the notifier. As the interface names
// them, the operation whose path says e-mail takes a phone number and sends an SMS; the one whose path says
// SMS takes an e-mail address and sends an e-mail: the channel follows the body. Each send is recorded in
// the invoice's history, in the transaction that records the message.
import { InvoiceNotificationTemplateType, InvoiceNotificationType } from '@pgw/client/enums';
import { type Scope, within } from '../platform/scope.ts';
import { ApiError } from '../platform/errors.ts';
import { formatUsd } from '../platform/money.ts';
import { iso } from '../platform/time.ts';
import { withTransaction } from '../platform/transaction.ts';
import type { InvoiceRecord } from '../repositories/invoices.ts';
import { findMerchant } from '../repositories/merchants.ts';
import { invoiceUrls } from './invoice-view.ts';
import * as engine from './engine.ts';
import { invoiceFamily, lockInvoice, permit } from './invoice-machine.ts';
import type { Channel } from './notifier.ts';

/** Each channel's operation (its history entry follows from the machine's row), body field and customer field. */
const CHANNELS = {
  sms: { channel: InvoiceNotificationType.Sms as Channel, trigger: 'sendInvoiceEmailNotification', target: 'phoneNumber', customerField: 'mobilePhoneNumber' },
  email: { channel: InvoiceNotificationType.Email as Channel, trigger: 'sendInvoiceSmsNotification', target: 'receiverEmail', customerField: 'email' },
} as const;

type Kind = keyof typeof CHANNELS;

function messageOf(kind: Kind, invoice: InvoiceRecord, merchantName: string, baseUrl: string): { subject: string | null; text: string } {
  const { fullUrl, shortUrl } = invoiceUrls(baseUrl, invoice);
  const number = invoice.number ?? '';
  const due = invoice.dueDate === null ? '' : ` due ${invoice.dueDate.slice(0, 10)}`;
  if (kind === 'sms') {
    return { subject: null, text: `${merchantName}: invoice ${number} for ${formatUsd(invoice.totalCents)}${due}. View and pay: ${shortUrl}` };
  }
  return {
    subject: `Invoice ${number} from ${merchantName}`,
    text: [
      `Hello ${invoice.customer.firstName} ${invoice.customer.lastName},`,
      '',
      `${merchantName} sent you invoice ${number} for ${formatUsd(invoice.totalCents)}${due}.`,
      `View and pay it here: ${fullUrl}`,
      ...(invoice.additionalNotes === '' ? [] : ['', invoice.additionalNotes]),
    ].join('\n'),
  };
}

async function send(scope: Scope, id: string, kind: Kind, given: string | null, consent: boolean): Promise<void> {
  const { merchantId } = scope;
  const spec = CHANNELS[kind];
  const now = scope.clock.now();
  await withTransaction(scope.db, async (tx) => {
    const t = within(scope, tx);
    const invoice = await lockInvoice(t, id);
    if (!consent) {
      throw new ApiError('consent_required', {
        details: 'The customer must consent to the notification: send customerConsent true.',
        errors: { customerConsent: ['must be true'] },
        entityId: invoice.id,
      });
    }
    permit(invoice, spec.trigger, now);
    const to = given ?? invoice.customer[spec.customerField];
    if (to === null) {
      throw new ApiError('notification_target_missing', {
        details: `Give ${spec.target}: the invoice's customer has no ${spec.customerField}.`,
        errors: { [spec.target]: [`is required: the invoice's customer has no ${spec.customerField}`] },
        entityId: invoice.id,
      });
    }
    const merchant = await findMerchant(tx, merchantId);
    const { subject, text } = messageOf(kind, invoice, merchant?.company_name ?? 'Your merchant', scope.config.baseUrl);
    const notificationId = await scope.instances.notifierFor(tx).send({
      merchantId, invoiceId: invoice.id, channel: spec.channel, template: InvoiceNotificationTemplateType.InvoicePublished, to, subject, text, createdOn: iso(now),
    });
    await engine.transition(t, invoiceFamily, invoice, spec.trigger, now, {
      history: { notificationId, notificationTypeId: spec.channel, notificationTemplateTypeId: InvoiceNotificationTemplateType.InvoicePublished, notificationTarget: to },
    });
  });
}

/** send-email-notification: a text message to phoneNumber (null: the invoice customer's mobile number). */
export function sendToPhone(scope: Scope, id: string, body: { phoneNumber: string | null; customerConsent: boolean }): Promise<void> {
  // The phone pattern of the interface admits the text `null`: it means none.
  const phone = body.phoneNumber === 'null' ? null : body.phoneNumber;
  return send(scope, id, 'sms', phone, body.customerConsent);
}

/** send-published-sms-notification: an e-mail to receiverEmail (null or left out: the invoice customer's e-mail). */
export function sendToEmail(scope: Scope, id: string, body: { receiverEmail?: string | null; customerConsent: boolean }): Promise<void> {
  return send(scope, id, 'email', body.receiverEmail ?? null, body.customerConsent);
}
