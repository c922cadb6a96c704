// Shared by the catalogue suites: paths, response shapes, and calls that assert their own success.
import request from 'supertest';
import { expect } from 'vitest';
import type { TestServer } from '../harness.ts';

export const CATEGORIES = '/pay-int-api/categories';
export const LINE_ITEMS = '/pay-int-api/line-items';
export const UNKNOWN = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

export interface Category { name: string; id: string; defaultUnitTypeId: number | null; itemCount: number }
export interface LineItem {
  id: string; unitType: string; unitTypeId: number; productName: string; description: string | null; sku: string | null;
  unitPrice: number; categoryId: string | null; categoryName: string | null; categoryDefaultUnitTypeId: number | null; taxRate: number;
}
export interface Page<T> { items: T[]; total: number }
export interface AlternativeBody { type: string; title: string; status: number; traceId: string; errors: Record<string, string> }

type Headers = Record<string, string>;
type Query = Record<string, string | number | boolean>;

/** Catalogue calls on the server the suite has started (read when called, after beforeAll). */
export function catalogueCalls(server: () => TestServer) {
  return {
    createCategory: async (headers: Headers, body: object): Promise<string> => {
      const res = await request(server().app).post(CATEGORIES).set(headers).send(body);
      expect(res.status, res.text).toBe(200);
      return (res.body as { id: string }).id;
    },
    createItem: async (headers: Headers, body: object): Promise<string> => {
      const res = await request(server().app).post(LINE_ITEMS).set(headers).send({ unitPrice: 10, unitTypeId: 1, ...body });
      expect(res.status, res.text).toBe(200);
      return (res.body as { id: string }).id;
    },
    categories: async (headers: Headers, query: Query = {}): Promise<Page<Category>> => {
      const res = await request(server().app).get(CATEGORIES).set(headers).query(query);
      expect(res.status, res.text).toBe(200);
      return res.body as Page<Category>;
    },
    items: async (headers: Headers, query: Query = {}): Promise<Page<LineItem>> => {
      const res = await request(server().app).get(LINE_ITEMS).set(headers).query(query);
      expect(res.status, res.text).toBe(200);
      return res.body as Page<LineItem>;
    },
  };
}
