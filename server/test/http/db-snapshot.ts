// Every row of every table, summarised per table, so a test can say which tables a request changed
// ("a refused request changes nothing"), on SQLite and PostgreSQL alike; and a request sent as raw bytes.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request as httpRequest, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';

/** Tables whose rows move without any request's doing (leases renewed by a timer). */
const MOVING = new Set(['instance_leases', 'key_state_instances', 'knex_migrations', 'knex_migrations_lock']);

export class Snapshot {
  constructor(readonly digests: ReadonlyMap<string, string>) {}

  /** The tables whose rows differ from `before`'s. */
  changedSince(before: Snapshot): string[] {
    const names = new Set([...this.digests.keys(), ...before.digests.keys()]);
    return [...names].filter((name) => this.digests.get(name) !== before.digests.get(name)).sort();
  }
}

async function tableNames(db: Knex): Promise<string[]> {
  if ((db.client as { config: { client: string } }).config.client === 'pg') {
    const rows = await db.raw<{ rows: { name: string }[] }>('select table_name as name from information_schema.tables where table_schema = current_schema()');
    return rows.rows.map((r) => r.name);
  }
  const rows = await db.raw<{ name: string }[]>("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'");
  return rows.map((r) => r.name);
}

/** A digest of each table's rows (in a stable order). */
export async function snapshot(db: Knex): Promise<Snapshot> {
  const digests = new Map<string, string>();
  for (const name of (await tableNames(db)).filter((n) => !MOVING.has(n))) {
    const rows = (await db(name).select('*')) as Record<string, unknown>[];
    const lines = rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value instanceof Date ? value.toISOString() : value))).sort();
    digests.set(name, createHash('sha256').update(lines.join('\n')).digest('hex'));
  }
  return new Snapshot(digests);
}

/** One request over a real socket, its body as the given bytes (supertest re-encodes a Buffer body's type). */
export async function rawRequest(app: RequestListener, method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string; body: unknown }> {
  const server = createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { ...headers, 'Content-Length': String(body.length) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try { parsed = JSON.parse(text); } catch { parsed = undefined; }
          resolve({ status: res.statusCode ?? 0, text, body: parsed });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  } finally {
    server.close();
  }
}
