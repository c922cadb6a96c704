// The dashboard's sessions (Knex only): stored by the hash of their id, read together with the state of the
// API key they were opened with. Times are wall-clock ISO text.
import type { Knex } from 'knex';

export interface SessionRecord {
  idHash: string; clientId: string; merchantId: string; createdOn: string; lastSeenOn: string; expiresOn: string; keyActive: boolean;
  /** When the session's merchant expires, if it is a sandbox merchant (wall clock); null otherwise. */
  sandboxExpiresAt: string | null;
}

interface Row { id_hash: string; client_id: string; merchant_id: string; created_on: string; last_seen_on: string; expires_on: string; is_active: boolean | number | null; sandbox_expires_at: string | null }

export async function insertSession(db: Knex, s: Omit<SessionRecord, 'keyActive' | 'sandboxExpiresAt'>): Promise<void> {
  await db('dashboard_sessions').insert({
    id_hash: s.idHash, client_id: s.clientId, merchant_id: s.merchantId, created_on: s.createdOn, last_seen_on: s.lastSeenOn, expires_on: s.expiresOn,
  });
}

/** The session with its key's state and its merchant's sandbox expiry, or undefined. */
export async function findSession(db: Knex, idHash: string): Promise<SessionRecord | undefined> {
  const row = await db('dashboard_sessions').leftJoin('api_keys', 'api_keys.client_id', 'dashboard_sessions.client_id')
    .leftJoin('merchants', 'merchants.id', 'dashboard_sessions.merchant_id')
    .where('dashboard_sessions.id_hash', idHash)
    .first<Row | undefined>('dashboard_sessions.*', 'api_keys.is_active', 'merchants.sandbox_expires_at');
  if (!row) return undefined;
  return {
    idHash: row.id_hash, clientId: row.client_id, merchantId: row.merchant_id, createdOn: row.created_on, lastSeenOn: row.last_seen_on,
    expiresOn: row.expires_on, keyActive: Boolean(row.is_active), sandboxExpiresAt: row.sandbox_expires_at ?? null,
  };
}

export async function touchSession(db: Knex, idHash: string, lastSeenOn: string): Promise<void> {
  await db('dashboard_sessions').where({ id_hash: idHash }).update({ last_seen_on: lastSeenOn });
}

export async function deleteSession(db: Knex, idHash: string): Promise<void> {
  await db('dashboard_sessions').where({ id_hash: idHash }).delete();
}

/** Sessions past their absolute end, or idle since before `idleBefore`, are removed. */
export async function deleteEnded(db: Knex, now: string, idleBefore: string): Promise<void> {
  await db('dashboard_sessions').where('expires_on', '<=', now).orWhere('last_seen_on', '<', idleBefore).delete();
}
