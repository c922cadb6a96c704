// Server configuration from the environment, as decisions.md names it; refuses values it cannot use.
import { isIP } from 'node:net';
import path from 'node:path';
import { isLoopbackHost, parseNetworks } from './platform/address-policy.ts';

export type Environment = 'sandbox' | 'production';

export interface ServerConfig {
  readonly port: number;
  /**
   * Processes serving the one port (PGW_INSTANCES, default 1; more need PostgreSQL): node's cluster module
   * shares the listening socket, and each process runs the app and the worker (server/src/cluster.ts).
   */
  readonly instances: number;
  readonly host: string;
  /** `sqlite:<file>`, `sqlite::memory:` or `postgres://…`. */
  readonly databaseUrl: string;
  readonly environment: Environment;
  readonly credentialsFile: string;
  /** The public base URL (token services and invoice links are built from it). */
  readonly baseUrl: string;
  readonly logLevel: string;
  /** `json` (one object a line, for collectors) or `pretty` (readable, for a terminal). */
  readonly logFormat: 'json' | 'pretty';
  /** How often the worker looks for due work (ms); 0 runs no worker (tests call runDue themselves). */
  readonly workerIntervalMs: number;
  /** How often the worker looks for webhook deliveries that fell due (ms); 0: with the other due work. */
  readonly deliveryIntervalMs: number;
  /** How long a worker holds a claimed webhook delivery (ms): longer than an attempt may take (15 s). */
  readonly webhookLeaseMs: number;
  /**
   * Sandbox only: webhooks may reach loopback and private addresses (PGW_WEBHOOK_ALLOW_PRIVATE; by default
   * when the server listens on loopback only, so a sandbox on a public interface is no proxy into its network).
   */
  readonly webhookAllowLocal: boolean;
  /** Sandbox only: networks webhooks may reach whatever their range (PGW_WEBHOOK_ALLOW_NETWORKS, CIDR text). */
  readonly webhookAllowNetworks: readonly string[];
  /**
   * PGW_TRUST_PROXY: the proxies whose X-Forwarded-* headers are believed, in Express's `trust proxy` terms
   * (addresses, CIDRs, `loopback`, `linklocal`, `uniquelocal`); empty: none (the headers are ignored).
   */
  readonly trustProxy: readonly string[];
  /** Throttling of failed credential checks (services/throttle.ts). */
  readonly throttle: ThrottleConfig;
  /**
   * PGW_REQUEST_TIMEOUT_SECONDS (default 30): how long a request may take to arrive, its headers and its whole
   * body; a connection still sending then is answered 408 and closed (main.ts: Node's requestTimeout and
   * headersTimeout, checked every second).
   */
  readonly requestTimeoutMs: number;
}

/** Express's names of address ranges (proxy-addr's), accepted in PGW_TRUST_PROXY. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, an address/prefix, or an IPv4 address/netmask, as Express's `trust proxy` takes them. */
function isProxyAddress(entry: string): boolean {
  const [address = '', range, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(range) === 4;
}

/** PGW_TRUST_PROXY, comma-separated; refused when an entry is neither an address, a CIDR nor a named range. */
export function parseTrustProxy(value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return [];
  const entries = value.split(',').map((e) => e.trim());
  const wrong = entries.find((e) => !NAMED_RANGES.has(e) && !isProxyAddress(e));
  if (wrong !== undefined) {
    throw new ConfigError(`PGW_TRUST_PROXY must be a comma-separated list of proxy addresses or CIDRs (or loopback, linklocal, uniquelocal), not ${JSON.stringify(value)}: ${JSON.stringify(wrong)} is none of them`);
  }
  return entries;
}

export interface ThrottleConfig {
  /** How long failures are counted, from the first one of a window (ms). */
  readonly windowMs: number;
  /** Failures of one identity (client id, user name) from one source address in a window. */
  readonly identityAddressLimit: number;
  /** Failures from one source address, whatever the identity, in a window. */
  readonly addressLimit: number;
  /** Failures of one identity from every address; refuses only addresses that failed for it themselves. */
  readonly identityLimit: number;
}

export class ConfigError extends Error {}

/** A whole number of at least `min` from the variable `name`, or its default. */
function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  const value = raw === undefined || raw.trim() === '' ? fallback : /^\s*\d{1,9}\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be a whole number of at least ${String(min)}, not ${String(raw)}`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd(), terminal = process.stdout.isTTY): ServerConfig {
  const port = Number(env.PORT ?? 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a port number, not ${String(env.PORT)}`);
  const host = env.HOST ?? '127.0.0.1';
  const environment = env.PGW_ENV ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new ConfigError(`PGW_ENV must be sandbox or production, not ${environment}`);
  }
  // The sandbox's own files (the SQLite database, the credentials file) go to PGW_DATA_DIR, `data/` of the working folder by default.
  const dataDir = path.resolve(cwd, env.PGW_DATA_DIR ?? 'data');
  const databaseUrl = env.DATABASE_URL ?? `sqlite:${path.join(dataDir, 'sandbox.sqlite')}`;
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be sqlite:<path>, sqlite::memory: or postgres://…');
  }
  const workerIntervalMs = Number(env.PGW_WORKER_INTERVAL_MS ?? 1000);
  if (!Number.isInteger(workerIntervalMs) || workerIntervalMs < 0) throw new ConfigError(`PGW_WORKER_INTERVAL_MS must be a whole number of milliseconds, not ${String(env.PGW_WORKER_INTERVAL_MS)}`);
  const deliveryIntervalMs = Number(env.PGW_DELIVERY_INTERVAL_MS ?? 100);
  if (!Number.isInteger(deliveryIntervalMs) || deliveryIntervalMs < 0) throw new ConfigError(`PGW_DELIVERY_INTERVAL_MS must be a whole number of milliseconds, not ${String(env.PGW_DELIVERY_INTERVAL_MS)}`);
  const webhookLeaseMs = Number(env.PGW_WEBHOOK_LEASE_MS ?? 60_000);
  if (!Number.isInteger(webhookLeaseMs) || webhookLeaseMs < 1000) throw new ConfigError(`PGW_WEBHOOK_LEASE_MS must be at least 1000 milliseconds, not ${String(env.PGW_WEBHOOK_LEASE_MS)}`);
  const { webhookAllowLocal, webhookAllowNetworks } = webhookReach(env, environment, host);
  // auto: readable lines in a terminal, JSON when the output goes to a file, a pipe or a collector.
  const format = env.PGW_LOG_FORMAT ?? 'auto';
  if (format !== 'auto' && format !== 'json' && format !== 'pretty') throw new ConfigError(`PGW_LOG_FORMAT must be auto, json or pretty, not ${format}`);
  const logFormat = format === 'auto' ? (terminal ? 'pretty' : 'json') : format;
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const instances = wholeNumber(env, 'PGW_INSTANCES', 1, 1);
  if (instances > 64) throw new ConfigError(`PGW_INSTANCES must be at most 64, not ${String(instances)}`);
  if (instances > 1 && !databaseUrl.startsWith('postgres')) {
    throw new ConfigError(`PGW_INSTANCES=${String(instances)} needs DATABASE_URL=postgres://…: SQLite has one writer, and one process serves it best`);
  }
  return {
    port,
    instances,
    host,
    databaseUrl,
    environment,
    credentialsFile: path.resolve(cwd, env.PGW_CREDENTIALS_FILE ?? path.join(dataDir, 'sandbox-credentials.json')),
    baseUrl: (env.PGW_BASE_URL ?? `http://${displayHost.includes(':') ? `[${displayHost}]` : displayHost}:${String(port)}`).replace(/\/$/, ''),
    logLevel: env.LOG_LEVEL ?? 'info',
    logFormat,
    workerIntervalMs,
    deliveryIntervalMs,
    webhookLeaseMs,
    webhookAllowLocal,
    webhookAllowNetworks,
    trustProxy: parseTrustProxy(env.PGW_TRUST_PROXY),
    // 10 failures of one key or user from one address in 5 minutes: a person mistyping never gets there, a
    // guesser gets ~2,900 tries a day instead of ~50,000 a minute.
    throttle: {
      windowMs: wholeNumber(env, 'PGW_THROTTLE_WINDOW_SECONDS', 300, 1) * 1000,
      identityAddressLimit: wholeNumber(env, 'PGW_THROTTLE_IDENTITY_ADDRESS_LIMIT', 10, 1),
      addressLimit: wholeNumber(env, 'PGW_THROTTLE_ADDRESS_LIMIT', 100, 1),
      identityLimit: wholeNumber(env, 'PGW_THROTTLE_IDENTITY_LIMIT', 50, 1),
    },
    // A 1 MB body (the largest read) needs ~35 KB/s to arrive in 30 s; a client trickling slower holds a
    // connection for nothing.
    requestTimeoutMs: wholeNumber(env, 'PGW_REQUEST_TIMEOUT_SECONDS', 30, 1) * 1000,
  };
}

/** What webhooks may reach besides public addresses; production reaches public addresses only, and says so. */
function webhookReach(env: NodeJS.ProcessEnv, environment: Environment, host: string): { webhookAllowLocal: boolean; webhookAllowNetworks: string[] } {
  const allowPrivate = (env.PGW_WEBHOOK_ALLOW_PRIVATE ?? 'auto').trim().toLowerCase();
  if (!['auto', '1', '0', 'true', 'false'].includes(allowPrivate)) {
    throw new ConfigError(`PGW_WEBHOOK_ALLOW_PRIVATE must be auto, 1 or 0, not ${String(env.PGW_WEBHOOK_ALLOW_PRIVATE)}`);
  }
  const parsed = parseNetworks(env.PGW_WEBHOOK_ALLOW_NETWORKS ?? '');
  if ('problem' in parsed) throw new ConfigError(`PGW_WEBHOOK_ALLOW_NETWORKS: ${parsed.problem}`);
  if (environment === 'production') {
    if (allowPrivate === '1' || allowPrivate === 'true' || parsed.networks.length > 0) {
      throw new ConfigError('PGW_WEBHOOK_ALLOW_PRIVATE and PGW_WEBHOOK_ALLOW_NETWORKS are for the sandbox: production webhooks reach public addresses only');
    }
    return { webhookAllowLocal: false, webhookAllowNetworks: [] };
  }
  const allowLocal = allowPrivate === 'auto' ? isLoopbackHost(host) : allowPrivate === '1' || allowPrivate === 'true';
  return { webhookAllowLocal: allowLocal, webhookAllowNetworks: parsed.networks };
}
