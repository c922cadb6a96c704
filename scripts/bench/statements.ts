// The SQL one request runs (issue 25: round trips per payment): the app in process on a fresh database,
// PostgreSQL (BENCH_DATABASE_URL / PGW_TEST_DATABASE_URL) or SQLite in memory, each statement of one ACH debit,
// card sale and customer create printed in order, after two warm-up requests of each.
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createApp } from '../../server/src/app.ts';
import { loadConfig } from '../../server/src/config.ts';
import { createDatabase, migrate } from '../../server/src/db/knex.ts';
import { seedDemoData } from '../../server/src/db/seed.ts';
import { createLogger } from '../../server/src/platform/log.ts';
import { systemClock } from '../../server/src/platform/time.ts';
import { achBody, customerBody, saleBody } from './lib-requests.ts';

const url = process.env.BENCH_DATABASE_URL ?? process.env.PGW_TEST_DATABASE_URL ?? 'sqlite::memory:';
const schema = url.startsWith('postgres') ? `bench_${randomBytes(4).toString('hex')}` : undefined;
const db = createDatabase(url, schema ? { schema } : {});
try {
  await migrate(db, 'sandbox', schema);
  const secrets = await seedDemoData(db, systemClock, 'sandbox');
  const merchant = secrets?.merchants[0];
  if (!merchant) throw new Error('no demo merchant');
  const app = await createApp({ config: loadConfig({ PGW_ENV: 'sandbox', DATABASE_URL: url, PORT: '0', LOG_LEVEL: 'warn' }), db, log: createLogger('warn'), clock: systemClock });
  const token = await request(app).post('/oauth2/token').type('form')
    .send({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant.clientId, client_secret: merchant.clientSecret });
  const auth = { authorization: `Bearer ${(token.body as { access_token: string }).access_token}` };
  const achProcessorId = merchant.achProcessorId;
  const calls = [
    ['ACH debit', '/pay-api/v1/transactions/ach/payment', achBody({ clientId: '', clientSecret: '', achProcessorId })],
    ['card sale', '/pay-api/v1/transactions/card/sale', saleBody],
    ['customer create', '/pay-api/v1/customers', customerBody],
  ] as const;
  let log: string[] | undefined;
  db.on('query', (q: { sql: string }) => { log?.push(q.sql.replace(/\s+/g, ' ').slice(0, 160)); });
  for (const [label, path, body] of calls) {
    for (let i = 0; i < 2; i++) await request(app).post(path).set(auth).type('json').send(body);
    log = [];
    const res = await request(app).post(path).set(auth).type('json').send(body);
    console.log(`\n== ${label}: ${String(res.status)}, ${String(log.length)} statements ==`);
    for (const sql of log) console.log(`  ${sql}`);
    log = undefined;
  }
  await app.close();
} finally {
  if (schema) await db.raw('drop schema if exists ?? cascade', [schema]);
  await db.destroy();
}
