// What the router accepts and refuses before a handler runs: legal query characters, numbers in decimal only,
// and every problem of a refused request reported at once, keyed by field.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '@pgw/client/client';
import { fieldsOf, startServer, type ErrorBody, type TestServer } from '../harness.ts';

const CUSTOMERS = '/pay-api/v1/customers';

describe('request validation', () => {
  let s: TestServer;
  beforeAll(async () => { s = await startServer('sqlite'); });
  afterAll(async () => { await s.close(); });

  it("accepts query values with the sub-delimiters a query may carry unencoded: * ( ) ' !", async () => {
    const h = await s.auth(0);
    for (const search of ["O'Brien", 'a*b', '(x)', 'wow!', "*()'!"]) {
      const res = await request(s.app).get(`${CUSTOMERS}?search=${search}`).set(h);
      expect([search, res.status, res.text.slice(0, 200)]).toEqual([search, 200, expect.any(String)]);
    }
  });

  it('accepts them from the generated client too', async () => {
    const listening = s.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const address = listening.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const token = (await s.auth(0)).Authorization ?? '';
      const client = createApiClient({ baseUrl: `http://127.0.0.1:${String(address.port)}`, headers: { Authorization: token } });
      const { response } = await client.api.GET('/pay-api/v1/customers', { params: { query: { search: "O'Brien (Jr.)!*" } } });
      expect(response.status).toBe(200);
    } finally {
      await new Promise((resolve) => listening.close(resolve));
    }
  });

  it.each(['0x10', '1e3', '%201', '1%20', '+1', '1.0', '', '0b1', 'Infinity'])('refuses the integer query value %j, naming the parameter', async (value) => {
    const res = await request(s.app).get(`${CUSTOMERS}?page=${value}`).set(await s.auth(0));
    expect([res.status, (res.body as ErrorBody).errorCode, fieldsOf(res.body)]).toEqual([400, 'validation_failed', ['page']]);
  });

  it('accepts integers in decimal digits, negative ones reaching the schema minimum', async () => {
    const h = await s.auth(0);
    expect((await request(s.app).get(`${CUSTOMERS}?page=2&pageSize=10`).set(h)).status).toBe(200);
    const negative = await request(s.app).get(`${CUSTOMERS}?page=-1`).set(h);
    expect([negative.status, fieldsOf(negative.body)]).toEqual([400, ['page']]);
  });

  it('reports every problem of a body, keyed by field, not only the first', async () => {
    const res = await request(s.app).post(CUSTOMERS).set(await s.auth(0)).send({
      firstName: 'x'.repeat(101), lastName: '', email: 'not-an-email', mobilePhoneNumber: 'call me',
    });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['email', 'firstName', 'lastName', 'mobilePhoneNumber']);
  });

  it('reports query and body problems together, numeric notation included', async () => {
    const res = await request(s.app).get(`${CUSTOMERS}?page=0x10&pageSize=1000`).set(await s.auth(0));
    expect([res.status, fieldsOf(res.body)]).toEqual([400, ['page', 'pageSize']]);
  });

  it('bounds the problems it reports', async () => {
    const cards = Array.from({ length: 10 }, () => ({ pan: 'x', expirationMonth: 13, expirationYear: 1, securityCode: 'abcdefgh', name: 'y'.repeat(500) }));
    const accounts = Array.from({ length: 10 }, () => ({ accountNumber: 'x', routingNumber: 'y', accountType: 9, accountHolderType: 9, name: 'z'.repeat(500) }));
    const res = await request(s.app).post(CUSTOMERS).set(await s.auth(0)).send({ firstName: 'A', lastName: 'B', paymentMethodsCards: cards, paymentMethodsAchAccounts: accounts });
    expect(res.status).toBe(400);
    const count = Object.values((res.body as ErrorBody).errors ?? {}).flat().length;
    expect(count).toBeGreaterThan(10);
    expect(count).toBeLessThanOrEqual(50);
  });
});
