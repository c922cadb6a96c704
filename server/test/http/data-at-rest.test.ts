// Data at rest: after customers are stored with cards (with security codes) and bank accounts through the
// API, no table of the database (every column of every row) holds a whole card number, a security code
// given, a whole account number, or a client secret of the credentials; nor does the log.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPostgres } from '../../src/db/knex.ts';
import { engines, startServer, type TestServer } from '../harness.ts';

const BASE = '/pay-api/v1/customers';

const cards = [
  { pan: '4111111111111111', securityCode: '847' },
  { pan: '378282246310005', securityCode: '6391' },
  { pan: '5555555555554444', securityCode: '529' },
  { pan: '6011111111111117', securityCode: '418' },
  { pan: '3530111333300000', securityCode: '736' },
  { pan: '30569309025904', securityCode: '952' },
  { pan: '4000000000000002', securityCode: '681' },
];
const accountNumbers = ['000123456789', '48213377441', '990000000001', '990000000096'];

/** A value found as its own token, not inside a longer run of letters, digits, dots or dashes: a uuid's
 * group, a timestamp's milliseconds or a duration do not count, while `"847"`, `=847,` or a column holding
 * 847 do. */
const asToken = (value: string): RegExp => new RegExp(`(?<![0-9A-Za-z.-])${value}(?![0-9A-Za-z.-])`);

describe.each(engines())('data at rest (%s)', (engine) => {
  let s: TestServer;
  let dump: { table: string; text: string }[] = [];

  beforeAll(async () => {
    s = await startServer(engine);
    const auth = await s.auth(0);
    const partner = { ...(await s.auth('partner')), 'x-merchant-id': s.secrets.merchants[1]?.merchantId ?? '' };
    const card = (i: number) => ({ name: `Card ${i}`, pan: cards[i]?.pan, securityCode: cards[i]?.securityCode, expirationMonth: 12, expirationYear: 2031 });
    const ach = (i: number) => ({ accountNumber: accountNumbers[i], routingNumber: '021000021', accountType: 1, accountHolderType: 2, name: `Account ${i}` });

    // A customer created with cards and bank accounts (with an Idempotency-Key, so the response is kept).
    const created = await request(s.app).post(BASE).set({ ...auth, 'Idempotency-Key': 'data-at-rest-1' }).send({
      firstName: 'Rest', lastName: 'Data', paymentMethodsCards: [card(0), card(1), card(2)], paymentMethodsAchAccounts: [ach(0), ach(2)],
    });
    expect(created.status, created.text).toBe(200);
    const customerId = (created.body as { id: string }).id;
    // Cards and accounts added one by one, by the merchant and by the partner.
    for (const i of [3, 4]) {
      const res = await request(s.app).post(`${BASE}/${customerId}/payment-methods/cards`).set({ ...auth, 'Idempotency-Key': `card-${i}` }).send(card(i));
      expect(res.status, res.text).toBe(200);
    }
    const res = await request(s.app).post(`${BASE}/${customerId}/payment-methods/ach`).set(auth).send(ach(1));
    expect(res.status, res.text).toBe(200);
    const other = await request(s.app).post(BASE).set(partner).send({ firstName: 'Other', lastName: 'Merchant', paymentMethodsCards: [card(5), card(6)], paymentMethodsAchAccounts: [ach(3)] });
    expect(other.status, other.text).toBe(200);
    // A refused create (an expired card) must leave nothing behind either.
    const refused = await request(s.app).post(BASE).set(auth).send({ firstName: 'No', lastName: 'Thing', paymentMethodsCards: [{ ...card(0), expirationYear: 2020 }] });
    expect(refused.status).toBe(400);

    const tables = isPostgres(s.db)
      ? (await s.db.raw<{ rows: { name: string }[] }>("select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'")).rows
      : await s.db.raw<{ name: string }[]>("select name from sqlite_master where type = 'table'");
    dump = [];
    for (const { name } of tables) {
      const rows = (await s.db(name).select('*')) as Record<string, unknown>[];
      dump.push({ table: name, text: rows.map((row) => Object.values(row).map((v) => (v instanceof Buffer ? v.toString('utf8') : String(v))).join('\u0001')).join('\n') });
    }
  });
  afterAll(async () => { await s.close(); });

  it('dumps the tables the customers live in', () => {
    const names = dump.map((d) => d.table);
    for (const table of ['customers', 'payment_methods', 'idempotency_keys', 'api_keys', 'merchants']) expect(names).toContain(table);
    const methods = dump.find((d) => d.table === 'payment_methods')?.text ?? '';
    expect(methods.split('\n')).toHaveLength(cards.length + accountNumbers.length);
    // What is kept is there: the masks and the last four digits.
    expect(methods).toContain('411111******1111');
    expect(methods).toContain('378282*****0005');
  });

  it('holds no whole card number in any column of any row', () => {
    for (const { pan } of cards) {
      for (const { table, text } of dump) expect(text.includes(pan), `${pan} in ${table}`).toBe(false);
    }
  });

  it('holds no security code given', () => {
    for (const { securityCode } of cards) {
      for (const { table, text } of dump) expect(asToken(securityCode).test(text), `${securityCode} in ${table}`).toBe(false);
    }
  });

  it('holds no whole bank account number', () => {
    for (const accountNumber of accountNumbers) {
      for (const { table, text } of dump) expect(text.includes(accountNumber), `${accountNumber} in ${table}`).toBe(false);
    }
  });

  it('holds no client secret nor password of the credentials', () => {
    const secrets = [s.secrets.partner.clientSecret, ...s.secrets.merchants.flatMap((m) => [m.clientSecret, m.userPassword])];
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    for (const secret of secrets) {
      for (const { table, text } of dump) expect(text.includes(secret), `a secret in ${table}`).toBe(false);
    }
  });

  it('writes none of them to the log', () => {
    const log = s.logLines.join('\n');
    expect(log.length).toBeGreaterThan(0);
    for (const { pan, securityCode } of cards) {
      expect(log.includes(pan)).toBe(false);
      expect(asToken(securityCode).test(log)).toBe(false);
    }
    for (const accountNumber of accountNumbers) expect(log.includes(accountNumber)).toBe(false);
  });
});
