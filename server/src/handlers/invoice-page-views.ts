// The HTML of the invoice page: the invoice (the view model the PDF renders too, invoice-document.ts), the
// amount to pay per payment type, and while it is open the card and bank-account forms. Every text is
// escaped; the one script and the one style carry the response's CSP nonce.
import { AccountHolderType, AccountType, InvoiceStatus, PaymentMethodType } from '../../../generated/enums.ts';
import type { components } from '../../../generated/types.ts';
import { enumerationItems, responseExample } from '../platform/spec-data.ts';
import { formatUsd, toCents, wireText } from '../platform/money.ts';
import { invoiceDocument } from '../services/invoice-document.ts';

type Invoice = components['schemas']['Invoice'];

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
const e = escapeHtml;

export const NOT_FOUND_PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Invoice not found</title></head>'
  + '<body><h1>Invoice not found</h1><p>This invoice does not exist or is not published.</p></body></html>';

/** What the page says above the forms: an error or decline (role=alert), with the fields it is about. */
export interface PageMessage {
  text: string;
  fields: string[];
}

/** The page's forms: a fresh token for each (see platform/form-tokens.ts). */
export interface PageForms {
  cardToken: string;
  achToken: string;
}

export interface PageOptions {
  /** The CSP nonce of this response. */
  nonce: string;
  /** Null when the invoice cannot be paid (Paid, Cancelled): no forms. */
  forms: PageForms | null;
  message: PageMessage | null;
}

interface Named { id: number; name: string }
const countries = (responseExample('/pay-api/v1/lookups/countries', 'get') as Named[]).map(({ id, name }) => ({ id, name }));
const states = (responseExample('/pay-api/v1/lookups/states', 'get') as (Named & { countryId: number })[]).filter((s) => s.countryId === 1);
const UNITED_STATES = 1;

const options = (items: readonly Named[], selected?: number): string =>
  items.map((i) => `<option value="${String(i.id)}"${i.id === selected ? ' selected' : ''}>${e(i.name)}</option>`).join('');

/** A labelled input; `attrs` are trusted attribute text written here (never user data). */
const field = (id: string, name: string, label: string, attrs: string, hint?: string): string =>
  `<div class="f"><label for="${id}">${e(label)}</label>${hint === undefined ? '' : `<small id="${id}-hint">${e(hint)}</small>`}`
  + `<input id="${id}" name="${name}" ${attrs}${hint === undefined ? '' : ` aria-describedby="${id}-hint"`}></div>`;

const select = (id: string, name: string, label: string, list: string, attrs = ''): string =>
  `<div class="f"><label for="${id}">${e(label)}</label><select id="${id}" name="${name}"${attrs}>${list}</select></div>`;

/** The text the payer agrees to by ticking the box (NACHA WEB debit authorization). */
export const achConsentText = (merchantName: string, amount: string): string =>
  `I authorize ${merchantName || 'the merchant'} to debit ${amount} once from the bank account above, by ACH, on or after today, `
  + 'to pay this invoice. I confirm that I may authorize debits of this account, and that I can revoke this authorization '
  + 'by contacting the merchant before the debit is processed.';

function cardForm(invoice: Invoice, token: string): string {
  const calc = invoice.invoiceCalculations;
  const months = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, name: String(i + 1).padStart(2, '0') }));
  return `<section aria-labelledby="card-h" class="pay">
<h2 id="card-h">Pay by card</h2>
<p>A credit card is charged ${e(formatUsd(toCents(calc.creditCard.totalAmount)))}, a debit card ${e(formatUsd(toCents(calc.debitCard.totalAmount)))}.</p>
<form method="post" action="/pay/invoices/${e(invoice.id)}/card" id="card-form" autocomplete="on">
<input type="hidden" name="formToken" value="${e(token)}">
<input type="hidden" name="creditTotal" value="${e(wireText(toCents(calc.creditCard.totalAmount)))}">
<input type="hidden" name="debitTotal" value="${e(wireText(toCents(calc.debitCard.totalAmount)))}">
${field('card-number', 'accountNumber', 'Card number', 'type="text" inputmode="numeric" autocomplete="cc-number" required maxlength="23" pattern="[0-9 \\-]{12,23}" spellcheck="false"')}
<div class="row">
${select('card-exp-month', 'expirationMonth', 'Expiry month', `<option value="">Month</option>${options(months)}`, ' autocomplete="cc-exp-month" required')}
${field('card-exp-year', 'expirationYear', 'Expiry year', 'type="text" inputmode="numeric" autocomplete="cc-exp-year" required maxlength="4" pattern="[0-9]{4}" placeholder="YYYY"')}
${field('card-csc', 'securityCode', 'Security code', 'type="text" inputmode="numeric" autocomplete="cc-csc" required maxlength="4" pattern="[0-9]{3,4}" spellcheck="false"', '3 digits on the back, 4 on the front of American Express')}
</div>
<div class="row">
${select('card-country', 'billingCountryId', 'Billing country', options(countries, UNITED_STATES), ' autocomplete="off"')}
${field('card-postal', 'billingPostalCode', 'Billing postal code', 'type="text" autocomplete="postal-code" maxlength="10"')}
</div>
<button type="submit" id="card-pay">Pay by card</button>
</form>
</section>`;
}

function achForm(invoice: Invoice, merchantName: string, token: string): string {
  const amount = formatUsd(toCents(invoice.invoiceCalculations.ach.totalAmount));
  return `<section aria-labelledby="ach-h" class="pay">
<h2 id="ach-h">Pay by bank account (ACH)</h2>
<p>Your bank account is debited ${e(amount)}.</p>
<form method="post" action="/pay/invoices/${e(invoice.id)}/ach" id="ach-form" autocomplete="on">
<input type="hidden" name="formToken" value="${e(token)}">
<div class="row">
${field('ach-routing', 'routingNumber', 'Routing number', 'type="text" inputmode="numeric" autocomplete="off" required maxlength="9" pattern="[0-9]{9}" spellcheck="false"', '9 digits')}
${field('ach-account', 'accountNumber', 'Account number', 'type="text" inputmode="numeric" autocomplete="off" required maxlength="17" spellcheck="false"')}
</div>
<div class="row">
${select('ach-type', 'accountType', 'Account type', options(enumerationItems('AccountType'), AccountType.Checking))}
${select('ach-holder', 'accountHolderType', 'Account holder', options(enumerationItems('AccountHolderType'), AccountHolderType.Personal))}
</div>
<div class="row">
${field('ach-first', 'firstName', 'First name', 'type="text" autocomplete="given-name" required maxlength="100"')}
${field('ach-last', 'lastName', 'Last name', 'type="text" autocomplete="family-name" required maxlength="100"')}
</div>
${field('ach-company', 'companyName', 'Company (optional)', 'type="text" autocomplete="organization" maxlength="100"')}
${field('ach-email', 'email', 'Email (optional)', 'type="email" autocomplete="email" maxlength="254"')}
${field('ach-line1', 'addressLine1', 'Address (optional)', 'type="text" autocomplete="address-line1" maxlength="100"')}
${field('ach-line2', 'addressLine2', 'Address line 2 (optional)', 'type="text" autocomplete="address-line2" maxlength="100"')}
<div class="row">
${field('ach-city', 'city', 'City (optional)', 'type="text" autocomplete="address-level2" maxlength="100"')}
${select('ach-state', 'stateId', 'State (optional)', `<option value="">State</option>${options(states)}`)}
${field('ach-postal', 'billingPostalCode', 'Postal code (optional)', 'type="text" autocomplete="postal-code" maxlength="10"')}
</div>
<div class="consent">
<input type="checkbox" id="ach-authorize" name="authorizeBankWithdrawal" value="true" required aria-describedby="ach-consent-text">
<label for="ach-authorize" id="ach-consent-text">${e(achConsentText(merchantName, amount))}</label>
</div>
<input type="hidden" name="authorizationConsentTimestamp" id="ach-consent-at" value="">
<button type="submit" id="ach-pay">Pay ${e(amount)} by bank account</button>
</form>
</section>`;
}

/**
 * The consent time is when the box was ticked: this script writes it into the hidden field. Without script
 * the field stays empty and the server records the submission time instead (invoice-page-forms.ts). The
 * script also disables a form's button once it is submitted (the server pays once anyway: form tokens).
 */
const SCRIPT = `(function(){var box=document.getElementById('ach-authorize'),at=document.getElementById('ach-consent-at');
if(box&&at){box.addEventListener('change',function(){at.value=box.checked?new Date().toISOString():'';});}
document.querySelectorAll('form').forEach(function(f){f.addEventListener('submit',function(){var b=f.querySelector('button');if(b){setTimeout(function(){b.disabled=true;},0);}});});})();`;

const STYLE = `body{font-family:Helvetica,Arial,sans-serif;max-width:760px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;width:100%}td,th{padding:.3em .5em;border-bottom:1px solid #ddd;text-align:left}.n{text-align:right}
.parties{display:flex;gap:3em}.pay{border:1px solid #ccc;border-radius:6px;padding:0 1em 1em;margin:1.5em 0}
.f{display:flex;flex-direction:column;margin:.5em 0;flex:1}.f small{color:#555}.row{display:flex;gap:1em;flex-wrap:wrap}
input,select,button{font:inherit;padding:.4em}button{margin-top:.8em;background:#1a5fb4;color:#fff;border:0;border-radius:4px;padding:.6em 1.2em;cursor:pointer}
button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #f5a623;outline-offset:1px}
.consent{display:flex;gap:.6em;align-items:flex-start;margin:.8em 0}.consent input{margin-top:.3em}
.alert{border:2px solid #c01c28;background:#fdeced;padding:.6em 1em;border-radius:6px}.paid{border:2px solid #26a269;background:#e9f7ef;padding:.6em 1em;border-radius:6px}`;

const PAYMENT_METHOD: Record<number, string> = { [PaymentMethodType.Card]: 'by card', [PaymentMethodType.ElectronicCheck]: 'by bank account' };

/** The invoice page: the document, what each payment type costs, the message, and the forms while open. */
export function invoicePageHtml(invoice: Invoice, merchantName: string, page: PageOptions): string {
  const d = invoiceDocument(invoice, merchantName);
  const lines = (list: readonly string[]): string => list.map(e).join('<br>');
  const pairs = (rows: readonly [string, string][], id?: string): string => rows.map(([label, value]) => `<tr><th scope="row">${e(label)}</th><td class="n"${id !== undefined && label === 'Total' ? ` id="${id}"` : ''}>${e(value)}</td></tr>`).join('\n');
  const rows = d.lines.map((l) => `<tr><td>${e(l.product)}${l.description === null ? '' : `<br><small>${e(l.description)}</small>`}</td>`
    + `<td class="n">${e(l.quantity)}</td><td class="n">${e(l.unitPrice)}</td><td class="n">${e(l.discount)}</td><td class="n">${e(l.amount)}</td></tr>`).join('\n');
  const status = d.facts.find(([label]) => label === 'Status')?.[1] ?? '';
  const amountIds = ['amount-credit', 'amount-debit', 'amount-ach'];
  const toPay = d.toPay === null ? '' : `<h2>Amount to pay</h2><table>${d.toPay.map(([label, value], i) => `<tr><th scope="row">${e(label)}</th><td class="n" id="${amountIds[i] ?? ''}">${e(value)}</td></tr>`).join('\n')}</table>`;
  const paid = invoice.status === InvoiceStatus.Paid
    ? `<p class="paid" role="status" id="paid">Paid${invoice.paymentMethodTypeId === null ? '' : ` ${e(PAYMENT_METHOD[invoice.paymentMethodTypeId] ?? '')}`}${invoice.paymentDate === null ? '' : ` on ${e(invoice.paymentDate.slice(0, 10))}`}. Thank you.</p>`
    : '';
  const message = page.message === null ? ''
    : `<div class="alert" role="alert" id="message"><p>${e(page.message.text)}</p>${page.message.fields.length === 0 ? '' : `<ul>${page.message.fields.map((f) => `<li>${e(f)}</li>`).join('')}</ul>`}</div>`;
  const forms = page.forms === null ? '' : `${cardForm(invoice, page.forms.cardToken)}\n${achForm(invoice, merchantName, page.forms.achToken)}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${e(d.title)} from ${e(merchantName)}</title>
<style nonce="${e(page.nonce)}">${STYLE}</style>
</head>
<body>
<main>
<h1>${e(d.title)}</h1>
<p>${lines(d.merchant)}</p>
<p>${d.facts.map(([label, value]) => (label === 'Status' ? `${e(label)}: <strong id="status">${e(status)}</strong>` : `${e(label)}: ${e(value)}`)).join('<br>')}</p>
${paid}
<div class="parties">
<section><h2>Bill to</h2><p>${lines(d.billTo)}</p></section>
${d.shipTo === null ? '' : `<section><h2>Ship to</h2><p>${lines(d.shipTo)}</p></section>`}
</div>
<table>
<tr>${d.columns.map((c, i) => `<th scope="col"${i > 0 ? ' class="n"' : ''}>${e(c)}</th>`).join('')}</tr>
${rows}
</table>
<table>
${pairs([...d.totals, d.total], 'total')}
</table>
${toPay}
${d.notes === null ? '' : `<h2>Notes</h2><p>${e(d.notes)}</p>`}
${d.payOnline === null ? '' : `<p>View and pay online: ${e(d.payOnline)}</p>`}
${message}
${forms}
</main>
${page.forms === null ? '' : `<script nonce="${e(page.nonce)}">${SCRIPT}</script>`}
</body>
</html>
`;
}
