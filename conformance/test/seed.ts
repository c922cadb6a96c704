// Fills a bundled server's merchant like a long-lived staging gateway: API keys and webhook endpoints through the
// API (few, and their secrets must be made by the server), customers and invoices by copying one made through the
// API, straight in the database (10,000 creates through HTTP would take most of a minute).
import { randomBytes, randomUUID } from 'node:crypto';
import knex, { type Knex } from 'knex';
// The seed writes straight into the bundled server's database, so it opens SQLite with the server's own driver
// (a Knex client; nothing of the server's logic).
import { SqliteClient, type SqliteConnection } from '../../server/src/db/sqlite-client.ts';

export interface SeedCounts {
  customers: number;
  invoices: number;
  apiKeys: number;
  webhookEndpoints: number;
}

type Pair = { clientId: string; clientSecret: string };

/** A database handle on the bundled server's SQLite file or PostgreSQL URL (its search_path in the URL). */
export function openDatabase(databaseUrl: string): Knex {
  if (databaseUrl.startsWith('sqlite:')) {
    return knex({ client: SqliteClient, connection: { filename: databaseUrl.slice('sqlite:'.length) }, useNullAsDefault: true, pool: { min: 1, max: 1, afterCreate: (conn: SqliteConnection, done: (e: Error | null, c: unknown) => void) => { conn.exec('PRAGMA busy_timeout = 10000'); done(null, conn); } } });
  }
  return knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 2 } });
}

async function api(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`seeding: ${method} ${path} answered ${String(res.status)} ${text.slice(0, 200)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

export async function tokenOf(baseUrl: string, pair: Pair): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: pair.clientId, client_secret: pair.clientSecret }).toString() });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`seeding: no token (${String(res.status)})`);
  return body.access_token;
}

const countOf = async (db: Knex, table: string, merchantId: string): Promise<number> =>
  Number(((await db(table).where('merchant_id', merchantId).count({ n: '*' }).first()) as { n: number | string } | undefined)?.n ?? 0);

/** Brings the merchant up to the counts given (what it holds already counts). */
export async function seedMerchant(db: Knex, baseUrl: string, merchantId: string, pair: Pair, counts: SeedCounts): Promise<void> {
  const token = await tokenOf(baseUrl, pair);
  for (let n = await countOf(db, 'api_keys', merchantId); n < counts.apiKeys; n++) await api(baseUrl, token, 'POST', '/pay-api/v1/merchants/tokens', { name: `seed key ${String(n)}` });
  // Subscribed to an event no run emits for this merchant: the endpoints exist, and nothing is delivered to them.
  for (let n = await countOf(db, 'webhook_endpoints', merchantId); n < counts.webhookEndpoints; n++) {
    await api(baseUrl, token, 'POST', '/v2/webhooks/endpoints', { name: `seed hook ${String(n)}`, endpointUrl: 'http://127.0.0.1:9/seed', eventTypes: ['merchant.created'] });
  }
  const customer = await api(baseUrl, token, 'POST', '/pay-api/v1/customers', { firstName: 'Seed', lastName: 'Template', email: 'seed@example.com' });
  const invoice = await api(baseUrl, token, 'POST', '/pay-int-api/invoices/publish', { id: null, dueDate: new Date(Date.now() + 60 * 86_400_000).toISOString(),
    customer: { firstName: 'Seed', lastName: 'Invoice', email: 'seed@example.com' }, lineItems: [{ lineItemId: null, productName: 'Seed', unitTypeId: 1, unitPrice: 10, quantity: 1 }] });

  const customerRow = (await db('customers').where('id', String(customer.id)).first()) as Record<string, unknown>;
  const missingCustomers = counts.customers - (await countOf(db, 'customers', merchantId));
  const base = Date.parse(String(customerRow.created_on));
  const customers = Array.from({ length: Math.max(0, missingCustomers) }, (_, i) => ({ ...customerRow, id: randomUUID(), last_name: `Seed${String(i)}`,
    created_on: new Date(base - (i + 1) * 1000).toISOString(), modified_on: new Date(base - (i + 1) * 1000).toISOString() }));
  await db.batchInsert('customers', customers, 100);

  const invoiceRow = (await db('invoices').where('id', String(invoice.id)).first()) as Record<string, unknown>;
  const lines = (await db('invoice_line_items').where('invoice_id', String(invoice.id))) as Record<string, unknown>[];
  const history = (await db('invoice_history').where('invoice_id', String(invoice.id))) as Record<string, unknown>[];
  const missingInvoices = Math.max(0, counts.invoices - (await countOf(db, 'invoices', merchantId)));
  await db.transaction(async (trx) => {
    const sequence = (await trx('invoice_number_sequences').where('merchant_id', merchantId).first()) as { last_number: number | string };
    const last = Number(sequence.last_number);
    const invoices = Array.from({ length: missingInvoices }, (_, i) => ({ ...invoiceRow, id: randomUUID(), number_seq: last + i + 1,
      number: `INV-${String(last + i + 1).padStart(6, '0')}`, short_code: randomBytes(6).toString('base64url').slice(0, 8) }));
    await trx.batchInsert('invoices', invoices, 50);
    await trx.batchInsert('invoice_line_items', invoices.flatMap((inv) => lines.map((l) => ({ ...l, id: randomUUID(), invoice_id: inv.id }))), 100);
    await trx.batchInsert('invoice_history', invoices.flatMap((inv) => history.map((h) => ({ ...h, id: randomUUID(), invoice_id: inv.id }))), 100);
    await trx('invoice_number_sequences').where('merchant_id', merchantId).update({ last_number: last + missingInvoices });
  });
}
