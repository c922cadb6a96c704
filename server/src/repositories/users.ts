// The management users (Knex only): the password grant finds one by e-mail address, compared in lower case.
import type { Knex } from 'knex';

export interface UserRow { id: string; merchant_id: string; password_hash: string }

export async function userByEmail(db: Knex, email: string): Promise<UserRow | undefined> {
  return db('users').where({ email: email.toLowerCase() }).first<UserRow | undefined>('id', 'merchant_id', 'password_hash');
}
