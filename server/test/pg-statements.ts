// The statements this process sends PostgreSQL, seen at pg's client (beneath db/pg-session.ts): started before a
// database opens its connections, since the session binds the client's query when the pool makes one.
import pg from 'pg';

export interface StatementSpy {
  /** The statements' texts, in the order sent (clear it to start counting). */
  readonly sent: string[];
  /** The name each was sent under (prepared on its connection by that name), or undefined, in the same order. */
  readonly names: (string | undefined)[];
  /** Puts pg's client back as it was. */
  restore: () => void;
}

export function spyOnStatements(): StatementSpy {
  const sent: string[] = [];
  const names: (string | undefined)[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, and called with apply
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; name?: unknown };
    sent.push(typeof first === 'string' ? first : first.text ?? '');
    names.push(typeof first === 'string' || typeof (first as { name?: unknown }).name !== 'string' ? undefined : (first as { name: string }).name);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  return { sent, names, restore: () => { pg.Client.prototype.query = original; } };
}
