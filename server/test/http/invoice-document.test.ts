// The PDF and the invoice page render one view model: every text of the model (addresses with their state,
// ship-to, line descriptions, "0%" discounts, totals, amounts to pay, notes) appears in both renderings.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '@pgw/client/types';
import { documentTexts, invoiceDocument } from '../../src/services/invoice-document.ts';
import { startServer, type TestServer } from '../harness.ts';
import { INVOICES, daysFrom, invoiceCalls, manualLine, pdfText } from './invoice-helpers.ts';

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();
const unescape = (html: string): string => html.replace(/<[^>]+>/g, ' ')
  .replace(/&(amp|lt|gt|quot|#39);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name] ?? '');

describe('the invoice document', () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer('sqlite'); });
  afterAll(async () => { await s.close(); });

  it('shows every text of its view model in the PDF and on the page', async () => {
    const h = await s.auth(0);
    const calls = invoiceCalls(() => s);
    const id = await calls.publish(h, {
      id: null, dueDate: daysFrom(s, 20), taxPercentage: 8.25, discountPercentage: 0, additionalNotes: 'Thank you & see you soon <3',
      customer: {
        firstName: 'Zoë', lastName: "O'Hara", companyName: 'Hara & Sons', email: 'zoe@example.com', mobilePhoneNumber: '+15555550100',
        useBillingAsShippingAddress: false,
        // The state by id only: the document names it.
        billingAddress: { line1: '1 Main St', city: 'Austin', zip: '78701', countryId: 1, stateId: 44 },
        shippingAddress: { line1: '9 Dock Rd', line2: 'Bay 4', city: 'Portland', zip: '97205', countryId: 1, stateId: 38, stateName: 'Oregon' },
      },
      lineItems: [
        manualLine({ productName: 'Consulting', description: 'Two hours of review', discountPercentage: 0 }),
        manualLine({ productName: 'Parts', description: 'Valves <DN50>', unitPrice: 19.99, quantity: 3, discountPercentage: 12.5 }),
      ],
    });
    const invoice = (await request(s.app).get(`${INVOICES}/${id}`).set(h).expect(200)).body as components['schemas']['Invoice'];
    const model = invoiceDocument(invoice, 'Acme Outdoor Supply');
    const texts = documentTexts(model).map(squash);
    // The model carries what the renderings used to drop.
    expect(model.billTo).toContain('Austin, Texas 78701');
    expect(model.shipTo).toContain('Portland, Oregon 97205');
    expect(model.lines.map((l) => [l.description, l.discount])).toEqual([['Two hours of review', '0%'], ['Valves <DN50>', '12.5%']]);

    const pdf = squash(pdfText(Buffer.from((await request(s.app).get(`${INVOICES}/${id}/download-pdf`).set(h).expect(200)).body as string, 'base64')).join(' '));
    const page = squash(unescape((await request(s.app).get(new URL(invoice.fullUrl).pathname).expect(200)).text));
    expect(texts.filter((t) => !pdf.includes(t))).toEqual([]);
    expect(texts.filter((t) => !page.includes(t))).toEqual([]);
    // Escaped on the page, not interpreted.
    const raw = (await request(s.app).get(new URL(invoice.fullUrl).pathname)).text;
    expect(raw).toContain('Valves &lt;DN50&gt;');
    expect(raw).not.toContain('<DN50>');
  });
});
