// Several processes on one port (PGW_INSTANCES > 1, PostgreSQL): the primary migrates, creates the demo data and
// picks the port, then forks the instances, which share the listening socket through node's cluster module
// (the primary hands each connection to the next one in turn) and each run the app and the worker: the
// instances already share one database safely (row locks, SKIP LOCKED claims, leases, key-state notices).
import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import type { ServerConfig } from './config.ts';
import type { Logger } from './platform/log.ts';
import { addressOf, announce, prepareDatabase } from './startup.ts';

/** How long a stopping primary waits for its instances to drain before it ends them. */
const STOP_WAIT_MS = 15_000;

export async function runPrimary(config: ServerConfig, log: Logger): Promise<void> {
  const secrets = await prepareDatabase(config);
  const { port, baseUrl } = await addressOf(config);
  // Each instance listens on the port chosen here and names the same base URL in its links.
  const env = { PORT: String(port), PGW_BASE_URL: baseUrl };
  let stopping = false;
  const fork = (): Promise<ClusterWorker> => new Promise((resolve, reject) => {
    const worker = cluster.fork(env);
    worker.once('listening', () => { resolve(worker); });
    worker.once('exit', (code) => { reject(new Error(`instance ${String(worker.id)} exited with ${String(code)} before listening`)); });
  });
  await Promise.all(Array.from({ length: config.instances }, fork));
  announce(config, baseUrl, secrets, log, config.instances);
  // An instance that dies is replaced (its unfinished work is claimed again through the leases); one that
  // cannot start ends the server, rather than forking in a loop.
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    log.error({ instance: worker.id, code, signal }, 'an instance stopped; starting another');
    fork().catch((error: unknown) => {
      log.fatal({ err: error }, 'a replacement instance could not start; stopping');
      stop();
    });
  });
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    log.info({ instances: config.instances }, 'stopping: every instance drains its requests and its worker');
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is ClusterWorker => w !== undefined);
    // A terminal's Ctrl-C reaches every process of the group already; a SIGTERM to the primary alone must be passed on.
    for (const worker of workers) worker.process.kill('SIGTERM');
    const ended = workers.map((w) => new Promise<void>((resolve) => { if (w.isDead()) resolve(); else w.once('exit', () => { resolve(); }); }));
    const timer = setTimeout(() => { for (const w of workers) w.process.kill('SIGKILL'); }, STOP_WAIT_MS);
    void Promise.all(ended).then(() => { clearTimeout(timer); process.exit(0); });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
