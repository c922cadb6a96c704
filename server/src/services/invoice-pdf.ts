// The invoice as a PDF document (pdfkit): the merchant, the customer, the lines and the totals. Written
// uncompressed in the standard Helvetica font, so the text of the document can be found in its bytes.
import PDFDocument from 'pdfkit';
import type { components } from '../../../generated/types.ts';

type Invoice = components['schemas']['Invoice'];
type Address = components['schemas']['InvoiceCustomerAddress'];

const STATUS_NAMES: Record<Invoice['status'], string> = { 1: 'Draft', 2: 'Due', 3: 'Past due', 4: 'Paid', 5: 'Cancelled' };

/** US dollars as printed: $1,129.14. */
export const usd = (amount: number): string => amount.toLocaleString('en-US', { style: 'currency', currency: 'USD' });

const day = (date: string | null): string => (date === null ? '-' : date.slice(0, 10));

const addressLines = (address: Address): string[] => {
  if (address === null) return [];
  const cityLine = [address.city, [address.stateName, address.zip].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  return [address.line1, address.line2, cityLine].filter((line): line is string => typeof line === 'string' && line !== '');
};

const quantityText = (quantity: number): string => quantity.toLocaleString('en-US', { maximumFractionDigits: 4 });

const LEFT = 50;
const RIGHT = 562;
const COLUMNS = { product: LEFT, quantity: 300, unitPrice: 360, discount: 435, total: 490 } as const;

function toBuffer(doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => { resolve(Buffer.concat(chunks)); });
    doc.on('error', reject);
    doc.end();
  });
}

/** Renders the invoice (as getInvoice returns it) and the merchant's name; `now` dates the document. */
export function invoicePdf(invoice: Invoice, merchantName: string, now: Date): Promise<Buffer> {
  const title = `Invoice ${invoice.number ?? ''}`.trim();
  const doc = new PDFDocument({ compress: false, size: 'LETTER', margin: LEFT, info: { Title: title, Author: merchantName, CreationDate: now } });
  doc.font('Helvetica');

  // Header: the merchant (left) and the invoice's number, status and dates (right).
  doc.font('Helvetica-Bold').fontSize(20).text(title, LEFT, 50);
  doc.font('Helvetica').fontSize(10);
  const contact = invoice.merchantContactInfo;
  let y = 80;
  for (const line of [merchantName, contact.addressLine1, contact.addressLine2, `${contact.city}, ${contact.stateName} ${contact.zip}`, contact.email, contact.businessPhoneNumber]) {
    if (line === null || line === '') continue;
    doc.text(line, LEFT, y);
    y += 13;
  }
  let right = 80;
  for (const line of [`Status: ${STATUS_NAMES[invoice.status]}`, `Issued: ${day(invoice.issueDate)}`, `Due: ${day(invoice.dueDate)}`,
    ...(invoice.paymentDate === null ? [] : [`Paid: ${day(invoice.paymentDate)}`])]) {
    doc.text(line, 380, right, { width: RIGHT - 380, align: 'right' });
    right += 13;
  }

  // The customer.
  y = Math.max(y, right) + 15;
  const c = invoice.customer;
  doc.font('Helvetica-Bold').text('Bill to', LEFT, y);
  doc.font('Helvetica');
  y += 13;
  for (const line of [`${c.firstName} ${c.lastName}`, c.companyName, ...addressLines(c.billingAddress), c.email, c.mobilePhoneNumber]) {
    if (line === null || line === '') continue;
    doc.text(line, LEFT, y);
    y += 13;
  }

  // The lines.
  y += 15;
  doc.font('Helvetica-Bold');
  doc.text('Item', COLUMNS.product, y).text('Qty', COLUMNS.quantity, y).text('Unit price', COLUMNS.unitPrice, y)
    .text('Discount', COLUMNS.discount, y).text('Amount', COLUMNS.total, y, { width: RIGHT - COLUMNS.total, align: 'right' });
  doc.font('Helvetica');
  y += 16;
  doc.moveTo(LEFT, y - 3).lineTo(RIGHT, y - 3).stroke();
  for (const line of invoice.lineItems) {
    if (y > 700) {
      doc.addPage();
      y = 50;
    }
    doc.text(line.productName, COLUMNS.product, y, { width: COLUMNS.quantity - COLUMNS.product - 10 });
    const rowEnd = doc.y;
    doc.text(quantityText(line.quantity), COLUMNS.quantity, y)
      .text(usd(line.unitPrice), COLUMNS.unitPrice, y)
      .text(line.discountPercentage === 0 ? '-' : `${line.discountPercentage}%`, COLUMNS.discount, y)
      .text(usd(line.totalAmount), COLUMNS.total, y, { width: RIGHT - COLUMNS.total, align: 'right' });
    y = Math.max(rowEnd, y + 13) + 3;
  }

  // The totals: those of the record (the amount paid once paid, the base amount before).
  y += 10;
  if (y > 640) {
    doc.addPage();
    y = 50;
  }
  const creditCard = invoice.invoiceCalculations.creditCard;
  const totals: [string, number][] = [
    ['Subtotal', invoice.subTotalAmount],
    [`Discount (${invoice.discountPercentage}%)`, 0 - creditCard.discountAmount],
    [`Tax (${invoice.taxPercentage}%)`, creditCard.taxAmount],
    [`Fees (${invoice.feesPercentage}%)`, creditCard.feesAmount],
    ['Shipping', invoice.shippingAmount],
    ...(invoice.surchargeAmount === 0 ? [] : [[`Surcharge (${invoice.surchargePercentage}%)`, invoice.surchargeAmount] as [string, number]]),
    ...(invoice.cashDiscountAmount === 0 ? [] : [[`Cash discount (${invoice.cashDiscountPercentage}%)`, 0 - invoice.cashDiscountAmount] as [string, number]]),
  ];
  for (const [label, amount] of totals) {
    doc.text(label, 330, y).text(usd(amount), COLUMNS.total, y, { width: RIGHT - COLUMNS.total, align: 'right' });
    y += 14;
  }
  doc.font('Helvetica-Bold').fontSize(12);
  doc.text('Total', 330, y + 4).text(usd(invoice.totalAmount), 430, y + 4, { width: RIGHT - 430, align: 'right' });
  doc.font('Helvetica').fontSize(10);
  y += 30;

  if (invoice.additionalNotes !== '') {
    doc.font('Helvetica-Bold').text('Notes', LEFT, y);
    doc.font('Helvetica').text(invoice.additionalNotes, LEFT, y + 13, { width: RIGHT - LEFT });
    y = doc.y + 10;
  }
  if (invoice.status === 2 || invoice.status === 3) doc.text(`View and pay online: ${invoice.fullUrl}`, LEFT, y, { width: RIGHT - LEFT });
  return toBuffer(doc);
}
