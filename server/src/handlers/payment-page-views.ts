// The HTML the public payment pages share (an invoice's, a payment link's): the card form, the bank-account
// form with its ACH authorization text and box, the message above them, the one script and style, and the
// document around a page's own content. Every text is escaped; the script and style carry the response's CSP nonce.
import { AccountHolderType, AccountType } from '@pgw/client/enums';
import { enumerationItems, responseExample } from '../platform/spec-data.ts';
import { type Cents, formatUsd, wireText } from '../platform/money.ts';
import { escapeHtml } from '../views/html.ts';

const e = escapeHtml;

/** A page for what does not exist (or is not published): the same for every kind, so nothing is told. */
export const notFoundPage = (what: string, why: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${e(what)} not found</title></head>`
  + `<body><h1>${e(what)} not found</h1><p>${e(why)}</p></body></html>`;

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

interface Named { id: number; name: string }
const countries = (responseExample('/pay-api/v1/lookups/countries', 'get') as Named[]).map(({ id, name }) => ({ id, name }));
const states = (responseExample('/pay-api/v1/lookups/states', 'get') as (Named & { countryId: number })[]).filter((s) => s.countryId === 1);
const UNITED_STATES = 1;

const options = (items: readonly Named[], selected?: number): string =>
  items.map((i) => `<option value="${String(i.id)}"${i.id === selected ? ' selected' : ''}>${e(i.name)}</option>`).join('');

/** A labelled input; `attrs` are trusted attribute text written here (never user data). */
export const field = (id: string, name: string, label: string, attrs: string, hint?: string): string =>
  `<div class="f"><label for="${id}">${e(label)}</label>${hint === undefined ? '' : `<small id="${id}-hint">${e(hint)}</small>`}`
  + `<input id="${id}" name="${name}" ${attrs}${hint === undefined ? '' : ` aria-describedby="${id}-hint"`}></div>`;

const select = (id: string, name: string, label: string, list: string, attrs = ''): string =>
  `<div class="f"><label for="${id}">${e(label)}</label><select id="${id}" name="${name}"${attrs}>${list}</select></div>`;

/** The text the payer agrees to by ticking the box (NACHA WEB debit authorization); `purpose`: "to pay this invoice". */
export const achConsentText = (merchantName: string, amount: string, purpose: string): string =>
  `I authorize ${merchantName || 'the merchant'} to debit ${amount} once from the bank account above, by ACH, on or after today, `
  + `${purpose}. I confirm that I may authorize debits of this account, and that I can revoke this authorization `
  + 'by contacting the merchant before the debit is processed.';

/**
 * What the payer chooses in a form (a payment link's amount or quantity): the inputs, written by the page that
 * offers them (escaped there), and what the form says it charges instead of a fixed amount.
 */
export interface FormChoice {
  /** The inputs for the card form and for the bank-account form (their ids differ). */
  readonly inputs: (form: 'card' | 'ach') => string;
  /** What is charged, in words ("the amount you enter above"). */
  readonly charged: string;
}

/** The card form: `action` its address; the amounts the page told the payer for a credit and a debit card. */
export function cardForm(action: string, amounts: { credit: Cents; debit: Cents }, token: string, choice?: FormChoice): string {
  const months = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, name: String(i + 1).padStart(2, '0') }));
  const said = choice !== undefined ? `Your card is charged ${e(choice.charged)}.`
    : amounts.credit === amounts.debit
      ? `Your card is charged ${e(formatUsd(amounts.credit))}.`
      : `A credit card is charged ${e(formatUsd(amounts.credit))}, a debit card ${e(formatUsd(amounts.debit))}.`;
  return `<section aria-labelledby="card-h" class="pay">
<h2 id="card-h">Pay by card</h2>
<p>${said}</p>
<form method="post" action="${e(action)}" id="card-form" autocomplete="on">
<input type="hidden" name="formToken" value="${e(token)}">
<input type="hidden" name="creditTotal" value="${e(wireText(amounts.credit))}">
<input type="hidden" name="debitTotal" value="${e(wireText(amounts.debit))}">
${choice?.inputs('card') ?? ''}
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

/** The bank-account form: `action` its address; `purpose` what the debit pays, in the authorization text. */
export function achForm(action: string, cents: Cents, merchantName: string, purpose: string, token: string, choice?: FormChoice): string {
  const amount = choice?.charged ?? formatUsd(cents);
  return `<section aria-labelledby="ach-h" class="pay">
<h2 id="ach-h">Pay by bank account (ACH)</h2>
<p>Your bank account is debited ${e(amount)}.</p>
<form method="post" action="${e(action)}" id="ach-form" autocomplete="on">
<input type="hidden" name="formToken" value="${e(token)}">
${choice?.inputs('ach') ?? ''}
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
<label for="ach-authorize" id="ach-consent-text">${e(achConsentText(merchantName, amount, purpose))}</label>
</div>
<button type="submit" id="ach-pay">Pay ${choice === undefined ? `${e(amount)} ` : ''}by bank account</button>
</form>
</section>`;
}

/** The message above the forms (an error or a decline), or nothing. */
export const messageHtml = (message: PageMessage | null): string => (message === null ? ''
  : `<div class="alert" role="alert" id="message"><p>${e(message.text)}</p>${message.fields.length === 0 ? '' : `<ul>${message.fields.map((f) => `<li>${e(f)}</li>`).join('')}</ul>`}</div>`);

/**
 * The script disables a form's button once it is submitted (the server pays once anyway: form tokens). The ACH
 * consent time is no field of the page: the server records when the ticked authorization arrives
 * (payment-page-forms.ts).
 */
const SCRIPT = `(function(){
document.querySelectorAll('form').forEach(function(f){f.addEventListener('submit',function(){var b=f.querySelector('button');if(b){setTimeout(function(){b.disabled=true;},0);}});});})();`;

const STYLE = `body{font-family:Helvetica,Arial,sans-serif;max-width:760px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;width:100%}td,th{padding:.3em .5em;border-bottom:1px solid #ddd;text-align:left}.n{text-align:right}
.parties{display:flex;gap:3em}.pay{border:1px solid #ccc;border-radius:6px;padding:0 1em 1em;margin:1.5em 0}
.f{display:flex;flex-direction:column;margin:.5em 0;flex:1}.f small{color:#555}.row{display:flex;gap:1em;flex-wrap:wrap}
input,select,button{font:inherit;padding:.4em}button{margin-top:.8em;background:#1a5fb4;color:#fff;border:0;border-radius:4px;padding:.6em 1.2em;cursor:pointer}
button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #f5a623;outline-offset:1px}
.consent{display:flex;gap:.6em;align-items:flex-start;margin:.8em 0}.consent input{margin-top:.3em}
.alert{border:2px solid #c01c28;background:#fdeced;padding:.6em 1em;border-radius:6px}.paid{border:2px solid #26a269;background:#e9f7ef;padding:.6em 1em;border-radius:6px}`;

/** The page: its title, its content (markup made by the caller, every text escaped), and the script when it has forms. */
export function pageDocument(title: string, nonce: string, content: string, withForms: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${e(title)}</title>
<style nonce="${e(nonce)}">${STYLE}</style>
</head>
<body>
<main>
${content}
</main>
${withForms ? `<script nonce="${e(nonce)}">${SCRIPT}</script>` : ''}
</body>
</html>
`;
}
