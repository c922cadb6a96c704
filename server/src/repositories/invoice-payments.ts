// What a payment through the gateway changes on an invoice besides its status (Knex only): the customer
// record the payment created. The status changes go through the engine (services/invoice-machine.ts).
import type { Knex } from 'knex';

export async function setCustomer(db: Knex, id: string, customerId: string): Promise<void> {
  await db('invoices').where({ id }).update({ customer_id: customerId });
}
