// The servers the HTTP benchmark loads: the gateway (SQLite or PostgreSQL), the Express hello-world and Prism.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freePort, logTail, progress, sleep, spawnLogged, stop, unexpectedExits, waitForHttp, waitForLog, type Spawned } from './lib-procs.ts';

export interface Merchant { clientId: string; clientSecret: string; achProcessorId: string }

export interface Server { label: string; base: string; proc: Spawned }

/** Gateway starts that failed and were retried, for the report. */
export const failedStarts: string[] = [];

export interface Gateway extends Server {
  databaseUrl: string;
  /** The credentials file the gateway wrote (its partner's key among them). */
  credentialsFile: string;
  merchant: Merchant;
  /** Authorization and content-type headers with a token younger than five minutes (tokens live 15). */
  headers: () => Promise<Record<string, string>>;
}

function gatewayEnv(port: number, databaseUrl: string, credentials: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATABASE_URL: databaseUrl, PGW_CREDENTIALS_FILE: credentials, LOG_LEVEL: 'info', ...extra };
  // Sandbox, as `npm start` runs it; the test database variables are the benchmark's, not the gateway's.
  delete env.PGW_ENV;
  delete env.PGW_TEST_DATABASE_URL;
  delete env.BENCH_DATABASE_URL;
  return env;
}

async function readMerchant(file: string, gateway: Spawned): Promise<Merchant> {
  // The gateway writes the file right after it starts listening; /healthz can answer a moment before.
  for (let i = 0; i < 50 && !existsSync(file); i++) await sleep(100);
  if (!existsSync(file)) throw new Error(`${gateway.label} wrote no credentials file ${file}; its log ends:\n${logTail(gateway.log)}`);
  const merchant = (JSON.parse(readFileSync(file, 'utf8')) as { merchants?: Partial<Merchant>[] }).merchants?.[0];
  if (typeof merchant?.clientId !== 'string' || typeof merchant.clientSecret !== 'string' || typeof merchant.achProcessorId !== 'string') {
    throw new Error(`${file}: merchants[0] lacks clientId, clientSecret or achProcessorId`);
  }
  return { clientId: merchant.clientId, clientSecret: merchant.clientSecret, achProcessorId: merchant.achProcessorId };
}

export async function fetchToken(base: string, merchant: Merchant): Promise<string> {
  const res = await fetch(`${base}/oauth2/token`, {
    method: 'POST',
    // The media type exactly as the token command of the startup banner (curl -d) sends it; fetch's default
    // adds ";charset=UTF-8", which a server under change has refused, and a token is not what is measured.
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'offline_access', client_id: merchant.clientId, client_secret: merchant.clientSecret }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${base}/oauth2/token answered ${String(res.status)}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { access_token: string }).access_token;
}

/**
 * Starts `server/src/main.ts` of `gatewayRoot` (cwd there, so that its own node_modules resolve) and
 * waits for /healthz. `prepare` gives a fresh database URL for each attempt. The server may be changing
 * under the benchmark, so a failed start is retried once, and the second failure is reported as it is.
 */
export async function startGateway(label: string, options: { gatewayRoot: string; dir: string; slug: string; prepare: () => Promise<string>; env?: Record<string, string>; nodeArgs?: readonly string[] }): Promise<Gateway> {
  for (let attempt = 1; ; attempt++) {
    const databaseUrl = await options.prepare();
    const port = await freePort();
    const credentials = path.join(options.dir, `credentials-${options.slug}.json`);
    rmSync(credentials, { force: true });
    const proc = spawnLogged(label, process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', 'server/src/main.ts'], {
      cwd: options.gatewayRoot, env: gatewayEnv(port, databaseUrl, credentials, options.env ?? {}), log: path.join(options.dir, `gateway-${options.slug}-${String(attempt)}.log`),
    });
    const base = `http://127.0.0.1:${String(port)}`;
    try {
      await waitForHttp(`${base}/healthz`, proc, 180_000);
      const merchant = await readMerchant(credentials, proc);
      let token = { value: await fetchToken(base, merchant), at: Date.now() };
      const headers = async (): Promise<Record<string, string>> => {
        if (Date.now() - token.at > 5 * 60_000) token = { value: await fetchToken(base, merchant), at: Date.now() };
        return { authorization: `Bearer ${token.value}`, 'content-type': 'application/json' };
      };
      progress(`${label} is up at ${base} (log ${proc.log})`);
      return { label, base, proc, databaseUrl, credentialsFile: credentials, merchant, headers };
    } catch (error) {
      await stop(proc);
      // A failed start is reported as one, not also as a crash during the measurements.
      for (let i = unexpectedExits.length - 1; i >= 0; i--) if (unexpectedExits[i]?.spawned === proc) unexpectedExits.splice(i, 1);
      failedStarts.push(`${label}, attempt ${String(attempt)}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''}`);
      if (attempt >= 2) throw new Error(`${label} failed to start twice; the last error: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      progress(`${label} failed to start (attempt ${String(attempt)}), retrying once: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** The Express hello-world baseline of this repository. */
export async function startHello(repoRoot: string, dir: string): Promise<Server> {
  const port = await freePort();
  const proc = spawnLogged('hello-world', process.execPath, ['--import', 'tsx', 'scripts/bench/hello-server.ts'], {
    cwd: repoRoot, env: { ...process.env, PORT: String(port) }, log: path.join(dir, 'hello.log'),
  });
  const base = `http://127.0.0.1:${String(port)}`;
  await waitForHttp(`${base}/hello`, proc);
  progress(`hello-world is up at ${base}`);
  return { label: 'hello-world', base, proc };
}

/** Prism's mock of this repository's generated/openapi.json; it answers from the spec's examples. */
export async function startPrism(repoRoot: string, dir: string): Promise<Server> {
  const port = await freePort();
  const proc = spawnLogged('Prism', path.join(repoRoot, 'node_modules', '.bin', 'prism'), ['mock', 'generated/src/openapi.json', '-h', '127.0.0.1', '-p', String(port)], {
    cwd: repoRoot, env: { ...process.env }, log: path.join(dir, 'prism.log'),
  });
  await waitForLog('Prism is listening', proc);
  const base = `http://127.0.0.1:${String(port)}`;
  progress(`Prism is up at ${base}`);
  return { label: 'Prism mock', base, proc };
}
