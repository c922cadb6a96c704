// Several processes on one port (PGW_INSTANCES > 1, PostgreSQL): the primary migrates and creates the demo data,
// then forks the instances, which share the listening socket through node's cluster module (the primary binds
// it at the first instance's listen and hands each connection to the next instance in turn) and each run the app
// and the worker: the instances share one database safely (row locks, SKIP LOCKED claims, leases, key-state notices).
import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import type { ServerConfig } from './config.ts';
import type { Logger } from './platform/log.ts';
import { announce, baseUrlOf, prepareDatabase } from './startup.ts';
import { stopWhenOrphaned } from './platform/parent-watch.ts';

/** How long a stopping primary waits for its instances to drain before it ends them. */
const STOP_WAIT_MS = 15_000;

export async function runPrimary(config: ServerConfig, log: Logger): Promise<void> {
  const secrets = await prepareDatabase(config);
  let stopping = false;
  // The instances listen on PORT as given. With PORT=0 the primary binds a port at the first instance's listen and
  // hands the same socket to every later listen(0) while an instance holds it; the others are told the base URL of
  // the port it got. (Probing a free port first and binding it later let another process take it in between:
  // EADDRINUSE, seen in CI.) A listen on that port by number would be a second bind of it, so only a replacement
  // forked when no instance is left (the socket closed with the last one) names the port.
  let listenPort = config.port;
  // The port the first instance's listen got, and the base URL every instance names (PGW_BASE_URL may name a proxy).
  const bound: { port?: number; baseUrl?: string } = {};
  const fork = (): Promise<{ worker: ClusterWorker; port: number }> => new Promise((resolve, reject) => {
    const alive = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined && !w.isDead()).length;
    if (alive === 0 && bound.port !== undefined) listenPort = bound.port;
    const worker = cluster.fork({ PORT: String(listenPort), ...(bound.baseUrl === undefined ? {} : { PGW_BASE_URL: bound.baseUrl }) });
    worker.once('listening', (address) => { resolve({ worker, port: address.port }); });
    worker.once('exit', (code) => { reject(new Error(`instance ${String(worker.id)} exited with ${String(code)} before listening`)); });
  });
  const { port } = await fork();
  const baseUrl = baseUrlOf(config, port);
  Object.assign(bound, { port, baseUrl });
  await Promise.all(Array.from({ length: config.instances - 1 }, fork));
  announce(config, baseUrl, secrets, log, config.instances);
  // An instance that dies is replaced (its unfinished work is claimed again through the leases); one that
  // cannot start ends the server, rather than forking in a loop.
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    log.error({ instance: worker.id, code, signal }, 'an instance stopped; starting another');
    fork().then(({ worker: replacement, port }) => {
      log.info({ instance: replacement.id, port }, 'the replacement instance is listening');
    }, (error: unknown) => {
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
  stopWhenOrphaned(stop);
}
