// `npm start`: the sandbox server. Migrates the database, creates the demo data on first start, writes the
// credentials file, and listens.
import type { ServerResponse } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { MissingHandlersError } from '../../generated/index.ts';
import { createApp } from './app.ts';
import { createInstances } from './instances.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createDatabase, migrate } from './db/knex.ts';
import { seedDemoData, writeCredentials } from './db/seed.ts';
import { answerClientErrors } from './platform/client-errors.ts';
import { createLogger, prettyDestination } from './platform/log.ts';
import { startupBanner, tokenCommand } from './platform/startup-banner.ts';
import { systemClock } from './platform/time.ts';
import { Worker } from './worker/worker.ts';

/** How long a stopping server still reads its open connections (requests sent before SIGTERM). */
const DRAIN_GRACE_MS = 1000;

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => { resolve(port); });
    });
  });
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel, config.logFormat === 'pretty' ? prettyDestination() : undefined);
  const db = createDatabase(config.databaseUrl);
  await migrate(db, config.environment);
  const secrets = await seedDemoData(db, systemClock, config.environment);
  // PORT=0 asks for any free port: take one now, so every URL the server builds (invoice links) names it.
  const port = config.port === 0 ? await freePort(config.host) : config.port;
  const baseUrl = process.env.PGW_BASE_URL ?? config.baseUrl.replace(/:\d+$/, `:${String(port)}`);
  const serverConfig = { ...config, port, baseUrl };
  // Made once: the app and the worker share them (a key revoked or a clock moved by either is forgotten by both).
  const instances = await createInstances({ db, config: serverConfig, log, wall: systemClock });
  const app = await createApp({ config: serverConfig, db, log, instances });
  const server = app.listen(port, config.host);
  answerClientErrors(server, log);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const written = writeCredentials(
    config.credentialsFile,
    { environment: config.environment, baseUrl, authUrl: baseUrl, crmAuthUrl: `${baseUrl}/crm` },
    secrets,
  );
  log.info({ baseUrl, docs: `${baseUrl}/docs`, environment: config.environment, database: config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@') }, 'payment gateway listening');
  if (secrets) log.info({ credentialsFile: config.credentialsFile }, 'demo data created; the credentials are in the credentials file (shown nowhere else)');
  else if (!written) log.warn({ credentialsFile: config.credentialsFile }, 'the credentials file is missing; the secrets of the existing data cannot be shown again');
  // In a terminal, plain lines that paste as printed; in JSON, the command as a field (`jq -r .tokenCommand`).
  if (config.logFormat === 'pretty') process.stdout.write(`${startupBanner(baseUrl, config.environment, config.credentialsFile)}\n`);
  else log.info({ docs: `${baseUrl}/docs`, tokenCommand: tokenCommand(baseUrl, config.credentialsFile) }, 'get a token with tokenCommand; the docs are at docs');
  // The worker runs what falls due (ACH batches and clearing, card settlement and expiry) beside the server.
  const worker = new Worker({ db, config: serverConfig, wall: systemClock, log, instances }, config.workerIntervalMs, config.deliveryIntervalMs || config.workerIntervalMs);
  if (config.workerIntervalMs > 0) worker.start();
  // SIGTERM: requests already on their way (sent, not yet read: a fast server answers the first of a burst
  // before it has read the others) are answered, not reset. For DRAIN_GRACE_MS the open connections are still
  // read and every answer says `Connection: close`; then the server stops listening, closes what is idle, lets
  // what is in flight finish, stops the worker and closes the database.
  let draining = false;
  server.prependListener('request', (_req, res: ServerResponse) => { if (draining) res.setHeader('Connection', 'close'); });
  const stop = (): void => {
    if (draining) return;
    draining = true;
    log.info('stopping: draining requests and the worker');
    setTimeout(() => {
      // Event streams never end by themselves, and server.close() waits for every response in flight.
      instances.streams.end();
      server.close(() => {
        void worker.stop().then(() => app.close()).then(() => instances.stop()).then(() => db.destroy()).then(() => process.exit(0));
      });
    }, DRAIN_GRACE_MS);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  // An operation of the spec without a handler: say which, without a stack trace, and do not start.
  if (error instanceof MissingHandlersError) console.error(`cannot start: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
