// The management users (Knex only): made with a merchant (demo or sandbox); the password grant finds one by
// e-mail address, compared in lower case.
import { newId } from '../platform/ids.ts';
import type { Knex } from 'knex';

export interface UserRow { id: string; merchant_id: string; password_hash: string }

export async function userByEmail(db: Knex, email: string): Promise<UserRow | undefined> {
  return db('users').where({ email: email.toLowerCase() }).first<UserRow | undefined>('id', 'merchant_id', 'password_hash');
}

export interface NewUser { merchantId: string; email: string; firstName: string; lastName: string; passwordHash: string; createdOn: string }

export async function insertUser(db: Knex, user: NewUser): Promise<void> {
  await db('users').insert({
    id: newId(), merchant_id: user.merchantId, email: user.email.toLowerCase(), first_name: user.firstName, last_name: user.lastName,
    password_hash: user.passwordHash, created_on: user.createdOn,
  });
}
