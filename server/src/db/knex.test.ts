// The embedded SQLite connection's settings: WAL with a long checkpoint interval on a file, none of it in memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from './knex.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgw-knex-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

const pragma = async (db: ReturnType<typeof createDatabase>, name: string): Promise<unknown> => {
  const rows = await db.raw<Record<string, unknown>[]>(`pragma ${name}`);
  return Object.values(rows[0] ?? {})[0];
};

describe('SQLite connection settings', () => {
  it('a file database runs in WAL mode, checkpointing every 10,000 pages and keeping its WAL under 64 MiB, its savepoint journals in memory', async () => {
    const db = createDatabase(`sqlite:${path.join(dir, 'file.sqlite')}`);
    try {
      expect(await pragma(db, 'journal_mode')).toBe('wal');
      expect(await pragma(db, 'wal_autocheckpoint')).toBe(10_000);
      expect(await pragma(db, 'journal_size_limit')).toBe(64 * 1024 * 1024);
      expect(await pragma(db, 'foreign_keys')).toBe(1);
      // 2 = MEMORY: a group commit's savepoint journals never spill to a temporary file (a write per page).
      expect(await pragma(db, 'temp_store')).toBe(2);
    } finally {
      await db.destroy();
    }
  });

  it('an in-memory database keeps SQLite\'s own checkpoint setting (it has no WAL) and enforces foreign keys', async () => {
    const db = createDatabase('sqlite::memory:');
    try {
      expect(await pragma(db, 'journal_mode')).toBe('memory');
      expect(await pragma(db, 'wal_autocheckpoint')).toBe(1000);
      expect(await pragma(db, 'foreign_keys')).toBe(1);
    } finally {
      await db.destroy();
    }
  });
});
