// Test harness: the app on a fresh database of each engine (SQLite in memory; PostgreSQL in a schema of
// its own when PGW_TEST_DATABASE_URL is set), the demo data, tokens, and the captured log lines.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { App } from '../src/app.ts';
import type { Instances } from '../src/instances.ts';
import request from 'supertest';
import { createApp } from '../src/app.ts';
import { loadConfig, type Environment, type ServerConfig } from '../src/config.ts';
import { createDatabase, migrate, type Database } from '../src/db/knex.ts';
import { seedDemoData, type CredentialsFile } from '../src/db/seed.ts';
import { createLogger, type Logger } from '../src/platform/log.ts';
import type { HostResolver } from '../src/platform/outbound-http.ts';
import type { Clock } from '../src/platform/time.ts';

export type Engine = 'sqlite' | 'postgres';

const postgresUrl = process.env.PGW_TEST_DATABASE_URL;
let warned = false;

/** The engines to run the HTTP suites on; says loudly when PostgreSQL is skipped. */
export function engines(): Engine[] {
  if (postgresUrl) return ['sqlite', 'postgres'];
  if (!warned) {
    warned = true;
    console.warn('\n*** SKIPPING the PostgreSQL runs of the HTTP tests: PGW_TEST_DATABASE_URL is not set (.ci/run sets it) ***\n');
  }
  return ['sqlite'];
}

/** A clock the tests can move: real time runs in it, but while stopped (then only advance() moves it). */
export class TestClock implements Clock {
  private offset = 0;
  private stoppedAt: number | undefined;
  now(): Date {
    return new Date((this.stoppedAt ?? Date.now()) + this.offset);
  }
  advance(seconds: number): void {
    this.offset += seconds * 1000;
  }
  /**
   * Runs `steps` with real time stopped in this clock, so that only advance() (and a merchant's clock advance, on
   * top of it) moves it: steps about a due time to the second then hold however long each takes. Real time runs
   * again afterwards: the clock moves on by what passed meanwhile, never back.
   */
  async stopped<T>(steps: () => Promise<T>): Promise<T> {
    this.stoppedAt = Date.now();
    try {
      return await steps();
    } finally {
      this.stoppedAt = undefined;
    }
  }
}

export type Secrets = Omit<CredentialsFile, 'environment' | 'baseUrl' | 'authUrl' | 'crmAuthUrl'>;

export interface TestServer {
  app: App;
  db: Database;
  config: ServerConfig;
  clock: TestClock;
  secrets: Secrets;
  /** Every log line written so far, as text. */
  logLines: string[];
  /** The app's log (writes to logLines): runDue({ ...s }) and a worker's deps pass it on. */
  log: Logger;
  /** A fresh access token of merchant 0 or 1, or of the partner. */
  token(who: 0 | 1 | 'partner'): Promise<string>;
  /** Authorization header for merchant 0 or 1 (tokens cached per server). */
  auth(who: 0 | 1 | 'partner'): Promise<Record<string, string>>;
  /** The id of demo merchant 0 or 1. */
  merchantId(i: 0 | 1): string;
  /** Headers for merchant 0 or 1, or for the partner acting on merchant `acting` (x-merchant-id). */
  as(who: 0 | 1 | 'partner', acting?: 0 | 1): Promise<Record<string, string>>;
  /** What the app keeps from start to stop (runDue({ ...s }) and a worker's deps pass it on). */
  instances: Instances;
  /** The resolver of webhook hosts the app was given (runDue({ ...s }) passes it on). */
  resolveHost?: HostResolver;
  close(): Promise<void>;
}

export interface ServerOptions {
  environment?: Environment;
  /** More environment variables for loadConfig (HOST, PGW_WEBHOOK_ALLOW_PRIVATE, …). */
  env?: Record<string, string>;
  /** Resolves webhook host names instead of the system resolver. */
  resolveHost?: HostResolver;
}

export async function startServer(engine: Engine, options: ServerOptions = {}): Promise<TestServer> {
  const schema = engine === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const url = engine === 'postgres' ? (postgresUrl ?? '') : 'sqlite::memory:';
  const db = createDatabase(url, schema ? { schema } : {});
  const environment = options.environment ?? 'sandbox';
  await migrate(db, environment, schema);
  const clock = new TestClock();
  const secrets = await seedDemoData(db, clock, environment);
  if (!secrets) throw new Error('the test database was not empty');
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  const config = loadConfig({ PGW_ENV: environment, DATABASE_URL: url, PORT: '0', LOG_LEVEL: 'info', ...options.env });
  const log = createLogger('info', sink);
  const app = await createApp({ config, db, log, clock, ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}) });
  const cache = new Map<string, string>();
  const credentialsOf = (who: 0 | 1 | 'partner'): { clientId: string; clientSecret: string } => {
    const entry = who === 'partner' ? secrets.partner : secrets.merchants[who];
    if (!entry) throw new Error(`no credentials for ${String(who)}`);
    return entry;
  };
  const token = async (who: 0 | 1 | 'partner'): Promise<string> => {
    const { clientId, clientSecret } = credentialsOf(who);
    const res = await request(app).post('/oauth2/token').type('form')
      .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: clientId, client_secret: clientSecret });
    if (res.status !== 200) throw new Error(`token for ${String(who)}: ${String(res.status)} ${res.text}`);
    return (res.body as { access_token: string }).access_token;
  };
  const auth = async (who: 0 | 1 | 'partner'): Promise<Record<string, string>> => {
    const key = String(who);
    let value = cache.get(key);
    if (value === undefined) {
      value = await token(who);
      cache.set(key, value);
    }
    return { Authorization: `Bearer ${value}` };
  };
  const merchantId = (i: 0 | 1): string => {
    const m = secrets.merchants[i];
    if (!m) throw new Error(`no demo merchant ${String(i)}`);
    return m.merchantId;
  };
  return {
    app, db, config, clock, secrets, logLines, log, token, auth, merchantId, instances: app.instances,
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    async as(who, acting) {
      return { ...(await auth(who)), ...(acting === undefined ? {} : { 'x-merchant-id': merchantId(acting) }) };
    },
    async close() {
      await app.close();
      if (schema) await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.destroy();
    },
  };
}

/** The standard error body's shape, for assertions. */
export interface ErrorBody {
  errors?: Record<string, string[]> | null;
  details: string | null;
  statusCode: number;
  source: string;
  exceptionType: string;
  correlationId: string;
  entityId: string | null;
  errorCode: string | null;
}

/** The field names of a validation error body's `errors`, sorted. */
export const fieldsOf = (body: unknown): string[] => Object.keys((body as ErrorBody).errors ?? {}).sort();

export interface SecondInstance {
  app: App;
  db: Database;
  /** Every statement it sent, as SQL text. */
  queries: string[];
  /** Its warnings and errors, as text lines. */
  logLines: string[];
  /** Resolves once a line of logLines from index `from` on matches `pattern`. */
  logged(pattern: RegExp, from?: number): Promise<void>;
  close(): Promise<void>;
}

/** A second server instance on the PostgreSQL schema of `a`, on a's clock (its own pool and key-state listener); `queries` records its SQL. */
export async function secondInstance(a: TestServer): Promise<SecondInstance> {
  if (!postgresUrl) throw new Error('a second instance needs PostgreSQL (PGW_TEST_DATABASE_URL)');
  const schema = (await a.db.raw<{ rows: { s: string }[] }>('select current_schema() as s')).rows[0]?.s ?? '';
  const db = createDatabase(postgresUrl, { schema });
  const queries: string[] = [];
  db.on('query', (q: { sql: string }) => { queries.push(q.sql); });
  const logLines: string[] = [];
  const waiting = new Set<() => void>();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      for (const check of [...waiting]) check();
      done();
    },
  });
  const config = loadConfig({ PGW_ENV: 'sandbox', DATABASE_URL: postgresUrl, PORT: '0', LOG_LEVEL: 'warn' });
  const app = await createApp({ config, db, log: createLogger('warn', sink), clock: a.clock });
  const logged = (pattern: RegExp, from = 0): Promise<void> => new Promise((resolve) => {
    const check = (): void => { if (logLines.slice(from).some((line) => pattern.test(line))) { waiting.delete(check); resolve(); } };
    waiting.add(check);
    check();
  });
  return { app, db, queries, logLines, logged, async close() { await app.close(); await db.destroy(); } };
}
