// What `npm start` does before and after listening, shared by one process (main.ts) and the primary of several
// (cluster.ts): migrate and create the demo data, name the base URL of a port, and announce the server with its credentials.
import type { ServerConfig } from './config.ts';
import { createDatabase, migrate } from './db/knex.ts';
import { seedDemoData, writeCredentials, type CredentialsFile } from './db/seed.ts';
import type { Logger } from './platform/log.ts';
import { startupBanner, tokenCommand } from './platform/startup-banner.ts';
import { systemClock } from './platform/time.ts';

type Secrets = Awaited<ReturnType<typeof seedDemoData>>;

/** The database brought to the latest version, with the demo data on first start (its secrets, once). */
export async function prepareDatabase(config: ServerConfig): Promise<Secrets> {
  const db = createDatabase(config.databaseUrl);
  try {
    await migrate(db, config.environment);
    return await seedDemoData(db, systemClock, config.environment);
  } finally {
    await db.destroy();
  }
}

/** The base URL every link names, for the port the server listens on. */
export const baseUrlOf = (config: ServerConfig, port: number): string => process.env.PGW_BASE_URL ?? config.baseUrl.replace(/:\d+$/, `:${String(port)}`);

/** Writes the credentials file and says where the server is and how to get a token. */
export function announce(config: ServerConfig, baseUrl: string, secrets: Secrets, log: Logger, instances = 1): void {
  const addresses: Pick<CredentialsFile, 'environment' | 'baseUrl' | 'authUrl' | 'crmAuthUrl'> = { environment: config.environment, baseUrl, authUrl: baseUrl, crmAuthUrl: `${baseUrl}/crm` };
  const written = writeCredentials(config.credentialsFile, addresses, secrets);
  log.info({ baseUrl, docs: `${baseUrl}/docs`, environment: config.environment, database: config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@'), instances }, 'payment gateway listening');
  if (secrets) log.info({ credentialsFile: config.credentialsFile }, 'demo data created; the credentials are in the credentials file (shown nowhere else)');
  else if (!written) log.warn({ credentialsFile: config.credentialsFile }, 'the credentials file is missing; the secrets of the existing data cannot be shown again');
  // The banner is plain lines that paste as printed, wherever the output goes. Under readable logs it follows
  // them on stdout; under JSON logs (stdout is a pipe, a file, CI: `npm start | tee`) it goes to stderr, so that
  // stdout stays one JSON object a line for collectors, and the command is there as a field too
  // (`jq -r .tokenCommand`), where JSON escapes its quotes.
  const banner = `${startupBanner(baseUrl, config.environment, config.credentialsFile)}\n`;
  if (config.logFormat === 'pretty') {
    process.stdout.write(banner);
    return;
  }
  log.info({ docs: `${baseUrl}/docs`, tokenCommand: tokenCommand(baseUrl, config.credentialsFile) }, 'get a token with tokenCommand (or from the plain lines on stderr); the docs are at docs');
  process.stderr.write(banner);
}
