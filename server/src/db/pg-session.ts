// PostgreSQL transactions in fewer round trips: BEGIN goes out with the transaction's first statement that needs
// it, and inserts nobody reads back are held and sent together, as one statement, before the next statement or
// at commit. Each round trip costs this process a socket write and read (~25% of an ACH debit's CPU, profiled).
//
// Why it keeps every transaction's meaning:
// - Before BEGIN only plain reads run. Under READ COMMITTED (the server sets no other level) a statement sees a
//   snapshot of its own whether or not a transaction is open, and a plain read takes no lock, so a read before
//   the first write sees what it would have seen after BEGIN. A read that locks (FOR UPDATE/SHARE) or calls a
//   function that acts (pg_notify, advisory locks, nextval...) is not plain: BEGIN goes out before it.
// - Held inserts go out before any other statement of the transaction, so a later read sees them, in the order
//   they were held (one statement of data-modifying WITH parts: they share a snapshot; foreign keys are checked
//   at its end, so an insert may refer to a row another part inserts). Two changes of one row in one statement
//   would not see each other, so an update is held only when nothing held writes its table (holdStatement).
// - A transaction that only read and held inserts commits as one statement, which is atomic by itself.
// - Inside a savepoint nothing is held, so a failing insert fails the savepoint, not its outer transaction.
// A held insert that fails (a broken constraint) fails the statement that sent it, or the commit: the
// transaction is rolled back and nothing of it is kept.

import { ShapedQuery, type RowShape } from './pg-shaped-query.ts';

/** A statement as pg takes it: text with $n placeholders, and its values. */
export interface Statement { readonly text: string; readonly values: readonly unknown[] }

type State = 'idle' | 'held' | 'open';

interface Session {
  state: State;
  /** Savepoints open (nothing is held inside one). */
  depth: number;
  pending: Statement[];
  /** Statements of this connection, one after another (a transaction may issue several at once). */
  chain: Promise<unknown>;
}

type Callback = (error: Error | null, result?: unknown) => void;

/** The part of a pg client used here. */
interface PgConnection {
  query: (...args: unknown[]) => unknown;
}

const sessions = new WeakMap<object, Session>();

/** PostgreSQL's limit is 65,535 values a statement; held inserts are sent in statements of at most this many. */
const VALUES_PER_STATEMENT = 30_000;

const BEGIN = /^\s*begin\s*;?\s*$/i;
const COMMIT = /^\s*commit\s*;?\s*$/i;
const ROLLBACK = /^\s*rollback\s*;?\s*$/i;
const SAVEPOINT = /^\s*savepoint\b/i;
const RELEASE = /^\s*release\b/i;
const ROLLBACK_TO = /^\s*rollback\s+to\b/i;
const SELECT = /^\s*select\b/i;
const LOCKS = /\bfor\s+(update|no\s+key\s+update|share|key\s+share)\b/i;
/** Functions a SELECT may call that act beyond reading (notify, lock, draw a sequence, set a setting...). */
const ACTS = /\b(pg_\w+|nextval|setval|currval|lastval|set_config|txid_\w+|lo_\w+|dblink\w*)\s*\(/i;

/** Whether a statement only reads, locks nothing and acts on nothing (it may run before BEGIN). */
export const isPlainRead = (text: string): boolean => SELECT.test(text) && !LOCKS.test(text) && !ACTS.test(text);

/**
 * Failures after which held inserts that are a transaction of their own (one statement) are sent again: their statement took
 * its snapshot before it waited for a lock, and what it read (a merchant's webhooks, for the fan-out) may have
 * gone in the commit it waited for (23503, foreign key), or it was a deadlock's victim (40P01). Nothing of it
 * was kept; sent again, it reads anew, as each statement of the transaction would have after that wait.
 */
const RETRIED: ReadonlySet<string> = new Set(['23503', '40P01', '40001']);
const ATTEMPTS = 3;

const fake = (command: string): unknown => ({ command, rowCount: null, rows: [], fields: [] });

/** Statements kept prepared (named) at most, per connection; the ones after go unnamed, parsed each time. */
export const NAMED_PER_CONNECTION = 500;
/**
 * Statements left unnamed: a generic plan would not see the pattern of a LIKE (the search's trigram index or
 * an early-stopping scan depends on it), and a `*` list's result type changes when a migration adds a column
 * ("cached plan must not change result type"): prepared statements name their columns.
 */
const UNNAMED = /\b(?:i?like|similar\s+to)\b|(?:^|[\s,.])\*(?=[\s,]|$)/i;

/**
 * The name under which a statement is prepared on its connection: each text with values gets one, once, so
 * PostgreSQL parses it once per connection and, after a few runs, plans it once (a generic plan where it costs no
 * more than the custom ones). Parse and plan were a third of PostgreSQL's CPU on a read by id
 * (pg_stat_statements, issue 43), and are more of a payment's combined insert of 60 values.
 */
export function preparedName(names: Map<string, string>, text: string): string | undefined {
  const known = names.get(text);
  if (known !== undefined || names.size >= NAMED_PER_CONNECTION || UNNAMED.test(text) || !/^\s*(?:select|insert|update|delete|with)\b/i.test(text)) return known;
  const name = `pgw_${String(names.size)}`;
  names.set(text, name);
  return name;
}

/** `$n` placeholders moved up by `offset` (the held statements come from Knex: `$` appears only in them). */
const renumber = (text: string, offset: number): string => (offset === 0 ? text : text.replace(/\$(\d+)/g, (_m, n: string) => `$${String(Number(n) + offset)}`));

/** One statement of parts (held statements): `with h0 as (insert...), h1 as (insert...) insert...`, values renumbered. */
function combinedText(group: readonly Statement[]): string {
  let offset = 0;
  const parts = group.map((s) => {
    const text = renumber(s.text, offset);
    offset += s.values.length;
    return text;
  });
  const last = parts.pop() ?? '';
  return parts.length === 0 ? last : `with ${parts.map((p, i) => `h${String(i)} as (${p})`).join(', ')} ${last}`;
}

/**
 * The most parts (held statements, each a node of the tree below) a connection keeps combined texts for: a
 * payment's 8 parts make a text of ~2 kB, so a connection keeps at most a few hundred kB.
 */
export const COMBINED_PER_CONNECTION = 200;

interface CombinedNode { readonly next: Map<string, Map<number, CombinedNode>>; text?: string }

/**
 * The combined texts a connection made, by their parts' texts and value counts in order. A payment's commit
 * combines the same parts every time: renumbering their ~70 placeholders anew, and hashing the new text to find
 * its prepared name, was 3-4% of the instance's CPU on PostgreSQL writes (profiled, issue 43). The same text
 * comes back as the same string, whose hash V8 keeps. A sequence whose new parts would take the tree past
 * COMBINED_PER_CONNECTION is built each time and not kept (so one very large batch leaves room for the rest).
 */
export class CombinedTexts {
  private readonly root: CombinedNode = { next: new Map() };
  private size = 0;

  /** How many parts are kept (at most COMBINED_PER_CONNECTION). */
  get kept(): number {
    return this.size;
  }

  textOf(group: readonly Statement[]): string {
    let node = this.root;
    let known = 0;
    for (const statement of group) {
      const child = node.next.get(statement.text)?.get(statement.values.length);
      if (child === undefined) break;
      node = child;
      known += 1;
    }
    if (known < group.length) {
      if (this.size + group.length - known > COMBINED_PER_CONNECTION) return combinedText(group);
      for (const statement of group.slice(known)) {
        let byCount = node.next.get(statement.text);
        if (byCount === undefined) {
          byCount = new Map<number, CombinedNode>();
          node.next.set(statement.text, byCount);
        }
        const child: CombinedNode = { next: new Map() };
        byCount.set(statement.values.length, child);
        node = child;
        this.size += 1;
      }
    }
    node.text ??= combinedText(group);
    return node.text;
  }
}

/**
 * Held inserts as few statements (at most VALUES_PER_STATEMENT values each), their texts from `texts` when
 * given (the connection's).
 */
export function combine(held: readonly Statement[], texts?: CombinedTexts): Statement[] {
  const out: Statement[] = [];
  let group: Statement[] = [];
  let count = 0;
  const close = (): void => {
    if (group.length === 0) return;
    const values: unknown[] = [];
    for (const statement of group) for (const value of statement.values) values.push(value);
    out.push({ text: texts ? texts.textOf(group) : combinedText(group), values });
    group = [];
    count = 0;
  };
  for (const statement of held) {
    if (group.length > 0 && count + statement.values.length > VALUES_PER_STATEMENT) close();
    group.push(statement);
    count += statement.values.length;
  }
  close();
  return out;
}

/**
 * Makes a pool connection's transactions begin late and send held inserts together (see the top of this file).
 * Knex drives the connection through `query` with a callback; other forms (promises) are served too.
 */
export function installSession(connection: PgConnection): void {
  const original = connection.query.bind(connection);
  const send = original as (config: object, callback: Callback) => void;
  const session: Session = { state: 'idle', depth: 0, pending: [], chain: Promise.resolve() };
  sessions.set(connection, session);
  /** The names of this connection's prepared statements, by text (a connection's statements outlive its transactions). */
  const names = new Map<string, string>();
  /** The row shapes of this connection's named statements (db/pg-shaped-query.ts). */
  const shapes = new Map<string, RowShape>();
  /** The combined texts of this connection's held statements. */
  const texts = new CombinedTexts();
  const run = (config: { text: string; values?: unknown; name?: unknown }): Promise<unknown> => new Promise((resolve, reject) => {
    // Statements with values only: they go by the extended protocol already (one without may hold several).
    const name = config.name === undefined && Array.isArray(config.values) && config.values.length > 0 ? preparedName(names, config.text) : undefined;
    const done: Callback = (error, result) => { if (error) reject(error); else resolve(result); };
    if (name === undefined) send(config, done);
    else send(new ShapedQuery({ text: config.text, values: config.values as unknown[], name }, done, shapes), done);
  });
  const flush = async (): Promise<void> => {
    const held = session.pending.splice(0);
    for (const statement of combine(held, texts)) await run({ text: statement.text, values: statement.values });
  };
  /** The transaction is over: the connection goes back to the pool as it came. */
  const end = (): void => {
    session.state = 'idle';
    session.depth = 0;
    session.pending = [];
  };
  const begin = async (): Promise<void> => {
    await run({ text: 'BEGIN' });
    session.state = 'open';
  };

  const handle = async (config: { text: string }): Promise<unknown> => {
    const { text } = config;
    if (session.state === 'idle') {
      if (!BEGIN.test(text)) return run(config);
      session.state = 'held';
      return fake('BEGIN');
    }
    if (session.state === 'held') {
      if (COMMIT.test(text)) {
        const [only, ...more] = combine(session.pending, texts);
        // Several statements (a very large batch) are atomic only together: they go inside BEGIN, below.
        if (more.length === 0) {
          // What the transaction wrote is one statement, atomic by itself (or nothing).
          end();
          for (let attempt = 1; only; attempt++) {
            try {
              await run(only);
              break;
            } catch (error) {
              if (attempt >= ATTEMPTS || !RETRIED.has((error as { code?: unknown }).code as string)) throw error;
            }
          }
          return fake('COMMIT');
        }
      } else if (ROLLBACK.test(text)) {
        end();
        return fake('ROLLBACK');
      } else if (session.pending.length === 0 && isPlainRead(text)) {
        return run(config);
      }
      await begin();
    }
    // Open: held inserts go first.
    if (ROLLBACK.test(text)) {
      end();
      return run(config);
    }
    if (COMMIT.test(text)) {
      try {
        await flush();
      } catch (error) {
        // The transaction is aborted: end it here, since the commit Knex sent is not going out.
        end();
        await run({ text: 'ROLLBACK' }).catch(() => undefined);
        throw error;
      }
      end();
      return run(config);
    }
    await flush();
    if (SAVEPOINT.test(text)) session.depth += 1;
    else if (RELEASE.test(text) || ROLLBACK_TO.test(text)) session.depth = Math.max(0, session.depth - 1);
    return run(config);
  };

  connection.query = (...args: unknown[]): unknown => {
    const [first, second, third] = args;
    const callback = (typeof second === 'function' ? second : typeof third === 'function' ? third : undefined) as Callback | undefined;
    const config = typeof first === 'string'
      ? { text: first, ...(Array.isArray(second) ? { values: second as unknown[] } : {}) }
      : first as { text?: unknown; submit?: unknown } | null;
    // A stream or other submittable object: as pg would take it, when no transaction is held open.
    if (config === null || typeof config !== 'object' || typeof config.text !== 'string' || 'submit' in config) {
      if (session.state !== 'idle') throw new Error('pg-session: only text statements may run inside a transaction');
      return original(...args);
    }
    const result = session.chain.then(() => handle(config as { text: string }));
    session.chain = result.catch(() => undefined);
    if (!callback) return result;
    result.then((value) => { callback(null, value); }, (error: unknown) => { callback(error instanceof Error ? error : new Error(String(error))); });
    return undefined;
  };
}

/** The table a statement writes: the name after INSERT INTO or UPDATE (a schema's name left off), or undefined. */
const TARGET = /^\s*(?:insert\s+into|update)\s+(?:(?:"(?:[^"]|"")+"|[\w$]+)\s*\.\s*)?("(?:[^"]|"")+"|[\w$]+)/i;
export function targetOf(text: string): string | undefined {
  const name = TARGET.exec(text)?.[1];
  if (name === undefined) return undefined;
  return name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name.toLowerCase();
}

/**
 * Holds a statement of the connection's open transaction until its next statement or its commit. False when it
 * cannot be held (no transaction, or inside a savepoint): the caller runs it at once.
 * - An insert is always held.
 * - An update is held only when no statement held already writes its table. Parts of one statement share a
 *   snapshot, so an update held with an insert of its table would not see that row, and two updates of one row
 *   would not see each other. Its row count is never known: hold only an update nobody counts (a counter's).
 */
export function holdStatement(connection: object, statement: Statement): boolean {
  const session = sessions.get(connection);
  if (!session || session.state === 'idle' || session.depth > 0) return false;
  if (/^\s*insert\b/i.test(statement.text)) {
    session.pending.push(statement);
    return true;
  }
  if (!/^\s*update\b/i.test(statement.text) || /\breturning\b/i.test(statement.text)) throw new Error('pg-session: only inserts and updates without RETURNING are held');
  const table = targetOf(statement.text);
  if (table === undefined || session.pending.some((held) => targetOf(held.text) === table)) return false;
  session.pending.push(statement);
  return true;
}
