// Where the CLI finds its server and credentials (a JSON file, overridden by flags), and the local signing
// secret of `pgw listen` (made once, kept beside the configuration with mode 0600).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ConfigError } from './errors.ts';

/** The options every command takes. */
export interface GlobalOptions {
  credentials?: string | undefined;
  baseUrl?: string | undefined;
  authUrl?: string | undefined;
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  merchant?: string | undefined;
}

export interface Config {
  baseUrl: string;
  /** The token service's base (`{auth_url}`); the token endpoint is `<authUrl>/oauth2/token`. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** The file the configuration came from, if any (the listen secret is kept beside it). */
  file: string | undefined;
}

/**
 * The file's shapes: the bundled server's credentials file (`merchants[]`, the first unless --merchant names
 * another by index or merchantId; the same file `pgw-conformance --credentials` reads), or one key
 * (`{ baseUrl, authUrl?, clientId, clientSecret }`).
 */
interface ConfigFile {
  baseUrl?: string; authUrl?: string; clientId?: string; clientSecret?: string;
  merchants?: { merchantId?: string; clientId?: string; clientSecret?: string }[];
  /** The partner's own key (the bundled server's credentials file has one): `pgw sandbox` uses it. */
  partner?: { clientId?: string; clientSecret?: string };
}

type Key = { clientId?: string | undefined; clientSecret?: string | undefined };

export const defaultConfigPath = (env: NodeJS.ProcessEnv = process.env): string =>
  env.PGW_CONFIG ?? path.join(homedir(), '.config', 'pgw', 'config.json');

function readFile(file: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the configuration file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
    return parsed;
  } catch (error) {
    throw new ConfigError(`the configuration file ${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function merchantOf(file: ConfigFile, which: string | undefined, name: string): Key {
  if (!file.merchants) {
    if (which !== undefined) throw new ConfigError(`--merchant ${which}: ${name} lists no merchants`);
    return { clientId: file.clientId, clientSecret: file.clientSecret };
  }
  const index = which === undefined ? 0 : /^\d+$/.test(which) ? Number(which) : file.merchants.findIndex((m) => m.merchantId === which);
  const found = file.merchants[index];
  if (!found) throw new ConfigError(`--merchant ${which ?? '0'}: ${name} has ${String(file.merchants.length)} merchant(s) (give an index from 0 or a merchantId)`);
  return found;
}

/** A partner's key: the file's `partner`, else the file's own key (a file that holds a partner's key). */
function partnerOf(file: ConfigFile, which: string | undefined): Key {
  if (which !== undefined) throw new ConfigError('--merchant does not apply: pgw sandbox acts with a partner\'s key');
  return file.partner ?? (file.merchants ? {} : { clientId: file.clientId, clientSecret: file.clientSecret });
}

/** The configuration of a merchant's key (every command but pgw sandbox). */
export function loadConfig(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Config {
  return resolveConfig(options, env, merchantOf);
}

/** The configuration of a partner's key (pgw sandbox): the file's `partner` unless --client-id says otherwise. */
export function loadPartnerConfig(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Config {
  return resolveConfig(options, env, (file, which) => partnerOf(file, which), '; this needs a partner\'s key: the file\'s "partner" entry, or --client-id and --client-secret of one');
}

function resolveConfig(options: GlobalOptions, env: NodeJS.ProcessEnv, pick: (file: ConfigFile, which: string | undefined, name: string) => Key, hint = ''): Config {
  const explicit = options.credentials ?? env.PGW_CONFIG;
  const file = explicit ?? defaultConfigPath(env);
  // A missing default file is fine when the flags say everything; a named one must exist.
  const fromFile = explicit !== undefined || existsSync(file) ? readFile(file) : undefined;
  const key = fromFile ? pick(fromFile, options.merchant, file) : {};
  const baseUrl = options.baseUrl ?? fromFile?.baseUrl;
  const clientId = options.clientId ?? key.clientId;
  const clientSecret = options.clientSecret ?? key.clientSecret;
  const missing = [baseUrl === undefined && '--base-url', clientId === undefined && '--client-id', clientSecret === undefined && '--client-secret'].filter(Boolean);
  if (missing.length > 0 || baseUrl === undefined || clientId === undefined || clientSecret === undefined) {
    const where = fromFile ? `${file} does not give them` : `no configuration file (${file}; set PGW_CONFIG or --credentials)`;
    throw new ConfigError(`missing ${missing.join(', ')}: ${where}${hint}`);
  }
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new ConfigError(`the base URL "${baseUrl}" is not a URL (e.g. http://127.0.0.1:4000)`);
  }
  const trim = (u: string): string => u.replace(/\/+$/, '');
  return { baseUrl: trim(base.href), authUrl: trim(options.authUrl ?? fromFile?.authUrl ?? base.href), clientId, clientSecret, file: fromFile ? file : undefined };
}

/** The listen secret's file: beside the configuration file, or in the default configuration folder. */
export const secretPath = (config: Pick<Config, 'file'>, env: NodeJS.ProcessEnv = process.env): string =>
  path.join(path.dirname(config.file ?? defaultConfigPath(env)), 'pgw-listen-secret');

/** The Standard Webhooks secret `pgw listen` signs with: read, or made (and said to be new) on first use. */
function readSecret(file: string): { secret: string; created: boolean } {
  const secret = readFileSync(file, 'utf8').trim();
  if (!/^whsec_[A-Za-z0-9+/=]{20,}$/.test(secret)) throw new ConfigError(`${file} does not hold a whsec_ secret; delete it to make a new one`);
  return { secret, created: false };
}

export function listenSecret(file: string): { secret: string; created: boolean } {
  if (existsSync(file)) return readSecret(file);
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    // flag wx: of two listeners starting at once, the second reads the first one's secret.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readSecret(file);
    throw new ConfigError(`cannot write the listen secret to ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  chmodSync(file, 0o600);
  return { secret, created: true };
}
