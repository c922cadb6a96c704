// The invoice as a PDF (pdfkit), rendering the one view model (invoice-document.ts) the invoice page renders
// too. Written uncompressed in the standard Helvetica font, so the text of the document can be found in its bytes.
import { createHash } from 'node:crypto';
import PDFDocument from 'pdfkit';
import type { components } from '@pgw/client/types';
import { invoiceDocument } from './invoice-document.ts';

type Invoice = components['schemas']['Invoice'];


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

/** Rendered documents kept, at most this many bytes in all (the least recently used go first). */
const KEPT_BYTES = 16 * 1024 * 1024;

/**
 * The invoices' PDFs, each rendered once for each content (the invoice as getInvoice returns it, with its
 * derived status, and the merchant's name) and kept: a render costs ~5 ms of CPU, and an invoice is downloaded
 * again and again (its page, its emails). One per server, made at start (instances.ts).
 */
export class InvoicePdfs {
  private readonly kept = new Map<string, Buffer>();
  private keptBytes = 0;

  constructor(private readonly limitBytes = KEPT_BYTES) {}

  /**
   * The invoice's PDF. `now` dates a document when it is first rendered; the same content later gives the same
   * bytes. The key is the whole content, so a kept document is never stale and never another's.
   */
  async of(invoice: Invoice, merchantName: string, now: Date): Promise<Buffer> {
    const key = createHash('sha256').update(JSON.stringify([invoice, merchantName])).digest('hex');
    const found = this.kept.get(key);
    if (found) {
      // Re-inserted: the map's order is the order of last use.
      this.kept.delete(key);
      this.kept.set(key, found);
      return found;
    }
    const rendered = await renderInvoicePdf(invoice, merchantName, now);
    if (rendered.length <= this.limitBytes) {
      this.kept.set(key, rendered);
      this.keptBytes += rendered.length;
      for (const [oldest, buffer] of this.kept) {
        if (this.keptBytes <= this.limitBytes) break;
        this.kept.delete(oldest);
        this.keptBytes -= buffer.length;
      }
    }
    return rendered;
  }
}

/** Renders the invoice (as getInvoice returns it) and the merchant's name; `now` dates the document. */
function renderInvoicePdf(invoice: Invoice, merchantName: string, now: Date): Promise<Buffer> {
  const d = invoiceDocument(invoice, merchantName);
  const doc = new PDFDocument({ compress: false, size: 'LETTER', margin: LEFT, info: { Title: d.title, Author: merchantName, CreationDate: now } });
  doc.font('Helvetica');

  // Header: the merchant (left) and the invoice's status and dates (right).
  doc.font('Helvetica-Bold').fontSize(20).text(d.title, LEFT, 50);
  doc.font('Helvetica').fontSize(10);
  let y = 80;
  for (const line of d.merchant) {
    doc.text(line, LEFT, y);
    y += 13;
  }
  let right = 80;
  for (const [label, value] of d.facts) {
    doc.text(`${label}: ${value}`, 380, right, { width: RIGHT - 380, align: 'right' });
    right += 13;
  }

  // The customer: bill to, and ship to beside it when the goods go elsewhere.
  y = Math.max(y, right) + 15;
  const top = y;
  doc.font('Helvetica-Bold').text('Bill to', LEFT, y);
  doc.font('Helvetica');
  y += 13;
  for (const line of d.billTo) {
    doc.text(line, LEFT, y, { width: 250 });
    y += 13;
  }
  if (d.shipTo) {
    let shipY = top;
    doc.font('Helvetica-Bold').text('Ship to', 330, shipY);
    doc.font('Helvetica');
    shipY += 13;
    for (const line of d.shipTo) {
      doc.text(line, 330, shipY, { width: RIGHT - 330 });
      shipY += 13;
    }
    y = Math.max(y, shipY);
  }

  // The lines, each with its description under the product.
  y += 15;
  doc.font('Helvetica-Bold');
  doc.text(d.columns[0], COLUMNS.product, y).text(d.columns[1], COLUMNS.quantity, y).text(d.columns[2], COLUMNS.unitPrice, y)
    .text(d.columns[3], COLUMNS.discount, y).text(d.columns[4], COLUMNS.total, y, { width: RIGHT - COLUMNS.total, align: 'right' });
  doc.font('Helvetica');
  y += 16;
  doc.moveTo(LEFT, y - 3).lineTo(RIGHT, y - 3).stroke();
  for (const line of d.lines) {
    if (y > 700) {
      doc.addPage();
      y = 50;
    }
    doc.text(line.product, COLUMNS.product, y, { width: COLUMNS.quantity - COLUMNS.product - 10 });
    if (line.description !== null) doc.fontSize(8).text(line.description, COLUMNS.product, doc.y, { width: COLUMNS.quantity - COLUMNS.product - 10 }).fontSize(10);
    const rowEnd = doc.y;
    doc.text(line.quantity, COLUMNS.quantity, y)
      .text(line.unitPrice, COLUMNS.unitPrice, y)
      .text(line.discount, COLUMNS.discount, y)
      .text(line.amount, COLUMNS.total, y, { width: RIGHT - COLUMNS.total, align: 'right' });
    y = Math.max(rowEnd, y + 13) + 3;
  }

  // The totals.
  y += 10;
  if (y > 600) {
    doc.addPage();
    y = 50;
  }
  for (const [label, amount] of d.totals) {
    doc.text(label, 330, y).text(amount, COLUMNS.total, y, { width: RIGHT - COLUMNS.total, align: 'right' });
    y += 14;
  }
  doc.font('Helvetica-Bold').fontSize(12);
  doc.text(d.total[0], 330, y + 4).text(d.total[1], 430, y + 4, { width: RIGHT - 430, align: 'right' });
  doc.font('Helvetica').fontSize(10);
  y += 30;
  if (d.toPay) {
    doc.font('Helvetica-Bold').text('Amount to pay', 330, y);
    doc.font('Helvetica');
    y += 14;
    for (const [label, amount] of d.toPay) {
      doc.text(label, 330, y).text(amount, COLUMNS.total, y, { width: RIGHT - COLUMNS.total, align: 'right' });
      y += 14;
    }
    y += 10;
  }
  if (d.notes !== null) {
    doc.font('Helvetica-Bold').text('Notes', LEFT, y);
    doc.font('Helvetica').text(d.notes, LEFT, y + 13, { width: RIGHT - LEFT });
    y = doc.y + 10;
  }
  if (d.payOnline !== null) doc.text(`View and pay online: ${d.payOnline}`, LEFT, y, { width: RIGHT - LEFT });
  return toBuffer(doc);
}
