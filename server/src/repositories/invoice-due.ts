// Invoices whose due date a span of business time passes (Knex only): PastDue is derived from the due
// date, so the sandbox clock advance counts them rather than changing them.
import type { Knex } from 'knex';

/** Due (status 2) invoices of the merchant whose due date lies in (after, until]. */
export async function countFallingDue(db: Knex, merchantId: string, after: string, until: string): Promise<number> {
  const row = (await db('invoices').where({ merchant_id: merchantId, status_id: 2 })
    .andWhere('due_date', '>', after).andWhere('due_date', '<=', until).count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}
