// `npm start` and `pgw-sandbox`: the sandbox server. Migrates the database, creates the demo data on first start,
// writes the credentials file, and listens.
import cluster from 'node:cluster';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MissingHandlersError } from '@pgw/client/server';
import { createApp } from './app.ts';
import { runPrimary } from './cluster.ts';
import { createInstances } from './instances.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createDatabase } from './db/knex.ts';
import { answerClientErrors } from './platform/client-errors.ts';
import { createLogger, prettyDestination } from './platform/log.ts';
import { systemClock } from './platform/time.ts';
import { announce, baseUrlOf, prepareDatabase } from './startup.ts';
import { Worker } from './worker/worker.ts';
import { stopWhenOrphaned } from './platform/parent-watch.ts';
import { USAGE, readCommandLine } from './command-line.ts';

/** How long a stopping server still reads its open connections (requests sent before SIGTERM). */
const DRAIN_GRACE_MS = 1000;

async function main(): Promise<void> {
  const commandLine = readCommandLine(process.argv.slice(2));
  if (commandLine.kind === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (commandLine.kind === 'usage-error') {
    console.error(`pgw-sandbox: ${commandLine.message}\n\n${USAGE}`);
    process.exit(2);
  }
  // The primary takes the options as the environment variables they stand for; its instances inherit them (and the
  // port the first one bound, which the primary sets), so they do not read the arguments again.
  if (cluster.isPrimary) Object.assign(process.env, commandLine.env);
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
  const rootLog = createLogger(config.logLevel, config.logFormat === 'pretty' ? prettyDestination() : undefined);
  // Each line of an instance of several names it, so that the log says which process served what.
  const log = cluster.worker ? rootLog.child({ instance: cluster.worker.id }) : rootLog;
  // Several processes: this one prepares the database and forks them (each runs the rest of this function).
  if (config.instances > 1 && cluster.isPrimary) {
    await runPrimary(config, log);
    return;
  }
  // A process of several: the primary migrated, created the demo data and announces the server; with PORT=0 the
  // first instance's bind chose the port the others are given.
  const primary = cluster.isPrimary;
  const secrets = primary ? await prepareDatabase(config) : undefined;
  const db = createDatabase(config.databaseUrl);
  // Bound before anything names its address: with PORT=0 the port is the one this bind got. A port probed free
  // and bound later can be taken in between by another process (seen in CI: a server exiting with EADDRINUSE).
  // A request must arrive whole (headers and body) within PGW_REQUEST_TIMEOUT_SECONDS, or it is answered 408 and
  // its connection closed (client-errors.ts); Node checks every second, so a trickle is cut within a second of it.
  // Each instance of several creates its server here too: the limit holds on the cluster alike.
  const server = createServer({ requestTimeout: config.requestTimeoutMs, headersTimeout: config.requestTimeoutMs, connectionsCheckingInterval: 1000 });
  answerClientErrors(server, log);
  // Requests that reach an instance before its app is made (a replacement instance of several) wait for it.
  const early: [IncomingMessage, ServerResponse][] = [];
  const hold = (req: IncomingMessage, res: ServerResponse): void => { early.push([req, res]); };
  server.on('request', hold);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(config.port, config.host);
  });
  const port = (server.address() as AddressInfo).port;
  const baseUrl = baseUrlOf(config, port);
  const serverConfig = { ...config, port, baseUrl };
  // Made once: the app and the worker share them (a key revoked or a clock moved by either is forgotten by both).
  const instances = await createInstances({ db, config: serverConfig, log, wall: systemClock });
  const app = await createApp({ config: serverConfig, db, log, instances });
  server.off('request', hold);
  server.on('request', app);
  for (const [req, res] of early.splice(0)) app(req, res);
  if (primary) announce(config, baseUrl, secrets, log);
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
  stopWhenOrphaned(stop);
}

main().catch((error: unknown) => {
  // An operation of the spec without a handler: say which, without a stack trace, and do not start.
  if (error instanceof MissingHandlersError) console.error(`cannot start: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
