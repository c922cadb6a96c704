// A merchant's transactions, card and ACH, as a page of a list (Knex only): the dashboard's list.
import type { Knex } from 'knex';
import { pageOf, type ListQuery } from './paging.ts';
import { recordOf, type TransactionRecord } from './transactions.ts';

export async function listTransactions(db: Knex, merchantId: string, list: ListQuery): Promise<{ items: TransactionRecord[]; total: number }> {
  const { rows, total } = await pageOf(db('transactions').where({ merchant_id: merchantId }), list, {
    orderable: { createdOn: 'created_on' },
    defaultOrder: 'createdOn',
    searchable: ['id'],
    dateColumn: 'created_on',
    idColumn: 'id',
    notNull: ['createdOn'],
  });
  return { items: rows.map(recordOf), total };
}
