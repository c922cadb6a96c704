// Every field a request may send is read by the server: for each operation, each property of its request body is
// named in the code its handler reaches (request-fields.ts). A new optional field that no code reads would be
// accepted and dropped silently; the fields taken and not kept on purpose are listed here with the reason.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadModules, requestFields, unreadFields } from './request-fields.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const srcDir = path.join(root, 'server', 'src');
const handlersDir = path.join(srcDir, 'handlers');
const bundle = (): Record<string, never> => JSON.parse(readFileSync(path.join(root, 'spec', 'dist', 'openapi.json'), 'utf8')) as Record<string, never>;

/** "operationId field.path" -> why the server accepts the field and keeps nothing of it. */
const UNREAD_ON_PURPOSE: Readonly<Record<string, string>> = {
  'createAchDebit requesterIPaddress': 'Required by the interface of the caller and validated (1 to 45 characters); the sandbox screens no fraud, so nothing is kept.',
  'createAchCredit requesterIPaddress': 'As createAchDebit.',
  'authorizeCard requesterIPaddress': 'As createAchDebit.',
  'createCardSale requesterIPaddress': 'As createAchDebit.',
  'refundCardWithoutReference requesterIPaddress': 'As createAchDebit.',
  'submitInvoiceCardPayment billingCountryId': 'Validated; the sandbox address check (avsResult) reads the postal code alone, and the invoice payment keeps no billing address.',
};

describe('request fields the server reads', () => {
  const modules = loadModules(srcDir);

  it('every operation with a request body has a handler, and every field of it is read (or listed, with the reason)', () => {
    const { unread, noHandler } = unreadFields(bundle(), modules, handlersDir, UNREAD_ON_PURPOSE);
    expect(noHandler).toEqual([]);
    expect(unread).toEqual([]);
  });

  it('lists only fields that exist and are unread (an entry whose field is read now, or gone, is stale)', () => {
    const doc = bundle();
    const known = new Set(requestFields(doc).map((f) => `${f.operationId} ${f.path}`));
    expect(Object.keys(UNREAD_ON_PURPOSE).filter((key) => !known.has(key))).toEqual([]);
    const { unread } = unreadFields(doc, modules, handlersDir, {});
    expect(Object.keys(UNREAD_ON_PURPOSE).filter((key) => !unread.includes(key))).toEqual([]);
  });

  it('catches a new optional field nothing reads, also a nested one (the check of the check)', () => {
    const doc = bundle() as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    const customer = doc.components.schemas.CustomerCreateRequest;
    if (!customer) throw new Error('no CustomerCreateRequest schema in the bundle');
    customer.properties.favouriteColour = { type: 'string' };
    const address = doc.components.schemas.CustomerAddressRequest;
    if (!address) throw new Error('no CustomerAddressRequest schema in the bundle');
    address.properties.doorCode = { type: 'string' };
    const { unread } = unreadFields(doc as never, modules, handlersDir, UNREAD_ON_PURPOSE);
    expect(unread).toContain('createCustomer favouriteColour');
    expect(unread).toContain('createCustomer billingAddress.doorCode');
  });

  it('catches a handler that no longer reaches the code reading a field', () => {
    const planted = loadModules(srcDir, { 'handlers/planted-customers.ts': '// planted\nexport const h = { async createCustomer() { return { status: 200 }; } };\n' });
    for (const file of [...planted.keys()].filter((f) => f.endsWith(path.join('handlers', 'customers.ts')))) planted.delete(file);
    const { unread } = unreadFields(bundle(), planted, handlersDir, UNREAD_ON_PURPOSE);
    expect(unread).toContain('createCustomer firstName');
  });
});
