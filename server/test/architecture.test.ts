// The architecture rules hold over server/src (architecture-rules.ts), and each rule catches a violation
// planted beside the real sources: the test of the test.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkServer, type Violation } from './architecture-rules.ts';

const srcDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** Violations planted in files that are not on disk (path under server/src -> text). */
const PLANTED: Record<string, string> = {
  'services/planted-query.ts': `// planted
import type { Knex } from 'knex';
import type { Deps } from '../platform/deps.ts';
export const byTable = (db: Knex) => db('customers');
export const viaDeps = (deps: Deps) => deps.db.raw('select 1');
`,
  'platform/planted-alias.ts': `// planted: the server's own alias of Knex
import type { Database } from '../db/knex.ts';
export const first = (db: Database, id: string) => db.table('customers').where({ id }).first();
`,
  'repositories/planted-locks.ts': `// planted
import type { Knex } from 'knex';
export const own = (db: Knex) => db.transaction(async (tx) => { await tx('customers').where({ id: 1 }).forUpdate(); });
export const byHand = (db: Knex) => db.raw('select id from customers for no key update skip locked');
`,
  'services/planted-let.ts': `// planted
let calls = 0;
export const count = (): number => ++calls;
`,
  'repositories/planted-up.ts': `// planted
export { listKeys } from '../services/api-keys.ts';
`,
  'services/planted-express.ts': `// planted
import express from 'express';
export const app = express;
`,
  'services/planted-money.ts': `// planted
import { type Cents, toCents } from '../platform/money.ts';
export const made = (n: number) => n as Cents;
export const dollars = (cents: Cents | null) => (cents ?? toCents(0)) / 100;
export const usd = (n: number) => n.toLocaleString('en-US', { style: 'currency', currency: 'USD' });
export const fine = (cents: Cents) => cents > toCents(1) ? cents : toCents(1);
`,
  'handlers/planted-repository.ts': `// planted: a value import of a repository (a type-only one is allowed)
import type { CustomerRecord } from '../repositories/customers.ts';
import { findMerchant } from '../repositories/merchants.ts';
export type Record = CustomerRecord;
export const find = findMerchant;
`,
  'services/planted-scope.ts': `// planted: a merchant id beside its dependencies, and a scope opened by a service
import type { Deps } from '../platform/deps.ts';
import { businessClock, openScope, type Scope } from '../platform/scope.ts';
export const listFor = (deps: Deps, merchantId: string) => deps.log.info({ merchantId });
export const other = (scope: Scope, merchantId: string) => openScope(scope, merchantId, 0);
export const clock = (deps: Deps) => businessClock(deps, 1000);
export const fine = (scope: Scope, id: string) => scope.log.info({ id, merchantId: scope.merchantId });
`,
};

let violations: Violation[] = [];
const planted = (file: string): string[] => violations.filter((v) => v.file === file).map((v) => `${v.rule}:${String(v.line)}`).sort();

beforeAll(() => {
  violations = checkServer(srcDir, PLANTED);
}, 120_000);

describe('architecture', () => {
  it('holds over server/src: no query builder outside repositories, transactions and locks only in the helper, no module-level let, layers kept, money only in money.ts, one scope', () => {
    expect(violations.filter((v) => !v.file.includes('planted-'))).toEqual([]);
  });

  it('catches the query builder outside repositories: a Knex value called, or a builder method on one (through Deps, or an alias)', () => {
    expect(planted('services/planted-query.ts')).toEqual(['query-builder:4', 'query-builder:5']);
    // table, where and first: each call on a Knex value counts.
    expect(planted('platform/planted-alias.ts')).toEqual(['query-builder:3', 'query-builder:3', 'query-builder:3']);
  });

  it('catches a repository opening a transaction or taking a row lock itself, in the builder or in SQL', () => {
    expect(planted('repositories/planted-locks.ts')).toEqual(['transaction-or-lock:3', 'transaction-or-lock:3', 'transaction-or-lock:4']);
  });

  it('catches a module-level let', () => {
    expect(planted('services/planted-let.ts')).toEqual(['module-let:2']);
  });

  it('catches imports that break the layers: a repository on a service, a service on express, a handler calling a repository', () => {
    expect(planted('repositories/planted-up.ts')).toEqual(['layer:2']);
    expect(planted('services/planted-express.ts')).toEqual(['layer:2']);
    // The type-only import of a record is allowed; the value import is not.
    expect(planted('handlers/planted-repository.ts')).toEqual(['layer:3']);
  });

  it('catches a merchant id passed beside its dependencies, and a scope or business clock opened outside the platform', () => {
    expect(planted('services/planted-scope.ts')).toEqual(['scope:4', 'scope:5', 'scope:5', 'scope:6']);
  });

  it('catches money outside platform/money.ts: cents asserted, cents divided (a second wire mapping), a currency formatter', () => {
    expect(planted('services/planted-money.ts')).toEqual(['money:3', 'money:4', 'money:5']);
  });
});
