// A search matching more than the counted bound (1,000): total is the bound with totalIsExact false, and the
// pages still hold every match once, in order; a search matching at most 1,000 counts exactly (with every other
// filter: dates, customerIds, another merchant's customers), on both engines.
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startServer, type TestServer } from '../harness.ts';

const BASE = '/pay-api/v1/customers';
interface Page { items: { id: string; lastName: string; email: string | null; createdOn: string }[]; total: number; totalIsExact?: boolean }

describe.each(engines())('a customer search beyond the counted bound on %s', (engine) => {
  let s: TestServer;
  /** 1,150 zebras (every 23rd also a "Quagga" by company) and 60 others, created a minute apart, oldest first. */
  const zebras: string[] = [];
  const start = Date.parse('2026-01-01T00:00:00Z');
  const at = (i: number): string => new Date(start + i * 60_000).toISOString();

  beforeAll(async () => {
    s = await startServer(engine);
    const rows = Array.from({ length: 1210 }, (_, i) => {
      const zebra = i < 1150;
      const id = randomUUID();
      if (zebra) zebras.push(id);
      return {
        id, merchant_id: s.merchantId(0), first_name: zebra ? `Zebra${String(i)}` : `Horse${String(i)}`, last_name: `L${String(1210 - i).padStart(5, '0')}`,
        company_name: zebra && i % 23 === 0 ? 'Quagga Ltd' : null, email: `c${String(i)}@herd.example`, created_on: at(i), modified_on: at(i),
      };
    });
    for (let i = 0; i < rows.length; i += 100) await s.db('customers').insert(rows.slice(i, i + 100));
  });
  afterAll(async () => { await s.close(); });

  const search = async (query: Record<string, string | number | boolean>, who: 0 | 1 = 0): Promise<Page> => {
    const res = await request(s.app).get(BASE).set(await s.auth(who)).query(query);
    expect(res.status, res.text).toBe(200);
    return res.body as Page;
  };

  it('answers total 1,000, not exact, for a search matching 1,150, and its pages hold all 1,150 once, oldest first', async () => {
    const first = await search({ search: 'zebra', pageSize: 100 });
    expect(first).toMatchObject({ total: 1000, totalIsExact: false });
    const seen: string[] = [];
    for (let page = 0; ; page++) {
      const { items, total, totalIsExact } = await search({ search: 'ZEBRA', pageSize: 100, page });
      expect({ total, totalIsExact }).toEqual({ total: 1000, totalIsExact: false });
      seen.push(...items.map((c) => c.id));
      if (items.length < 100) break;
    }
    expect(seen).toEqual(zebras);
    // Ordered by another field the other way, the matches are the same set.
    const byName = await search({ search: 'zebra', pageSize: 5, orderBy: 'lastName', asc: true });
    expect(byName.items.map((c) => c.lastName)).toEqual(['L00061', 'L00062', 'L00063', 'L00064', 'L00065']);
  });

  it('counts exactly when the other filters leave at most 1,000 matches, or the search matches fewer', async () => {
    expect(await search({ search: 'zebra', dateTo: at(899), pageSize: 1 })).toMatchObject({ total: 900, totalIsExact: true });
    expect(await search({ search: 'zebra', dateFrom: at(1000), pageSize: 1 })).toMatchObject({ total: 150, totalIsExact: true });
    expect(await search({ search: 'quagga', pageSize: 1 })).toMatchObject({ total: 50, totalIsExact: true });
    expect(await search({ search: 'horse', pageSize: 100 })).toMatchObject({ total: 60, totalIsExact: true });
    expect(await search({ search: 'zebra', customerIds: zebras[7] ?? '' })).toMatchObject({ total: 1, totalIsExact: true });
    expect(await search({ search: 'zebra', customerIds: zebras[7] ?? '' }).then((p) => p.items.map((c) => c.id))).toEqual([zebras[7]]);
    // A text that is in the joined fields but in no one field is no match (the index's text is a superset).
    expect(await search({ search: 'zebra1 l', pageSize: 1 })).toMatchObject({ total: 0, totalIsExact: true });
    // The unfiltered list is its kept count.
    expect(await search({ pageSize: 1 })).toMatchObject({ totalIsExact: true });
  });

  it("does not count another merchant's matches: merchant 1 has no zebras", async () => {
    expect(await search({ search: 'zebra' }, 1)).toEqual({ items: [], total: 0, totalIsExact: true });
  });

  it('treats LIKE wildcards in the search as text on the bounded path too', async () => {
    expect(await search({ search: '%@herd', pageSize: 1 })).toMatchObject({ total: 0, totalIsExact: true });
    expect(await search({ search: '@herd.example', pageSize: 1 })).toMatchObject({ total: 1000, totalIsExact: false });
  });
});
