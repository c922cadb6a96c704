// A fresh PostgreSQL schema for one test file's bundled server: its URL (search_path set), and a drop.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A PostgreSQL URL whose connections work in a fresh schema (made here, dropped by `drop`). */
export async function freshSchema(url: string, prefix = 'conformance_fuzz'): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  const withPath = new URL(url);
  withPath.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: withPath.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema ${schema} cascade`);
      await c.end();
    },
  };
}
