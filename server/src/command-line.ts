// pgw-sandbox's command line: --data, --port and --host as the environment variables they stand for, and --help.
import { parseArgs } from 'node:util';

export const USAGE = `usage: pgw-sandbox [--data DIR] [--port N] [--host ADDRESS]

Starts the Payment Gateway sandbox: migrates its database, creates the demo merchants on first start, writes
their credentials (DIR/sandbox-credentials.json) and listens. SIGTERM or SIGINT stops it and whatever it started.

  --data DIR      the sandbox's folder: the SQLite database and the credentials file (PGW_DATA_DIR; default ./data)
  --port N        the port to listen on (PORT; default 4000, 0 for any free port)
  --host ADDRESS  the address to listen on (HOST; default 127.0.0.1)

DATABASE_URL=postgres://... uses PostgreSQL instead (PGW_INSTANCES=N runs N processes on it); the other
settings (PGW_ENV, PGW_BASE_URL, LOG_LEVEL, PGW_LOG_FORMAT, ...) are in the package's README.
`;

export type CommandLine = { kind: 'help' } | { kind: 'usage-error'; message: string } | { kind: 'run'; env: Record<string, string> };

/** What the arguments ask for: the environment settings they make, the usage, or why they are wrong. */
export function readCommandLine(argv: readonly string[]): CommandLine {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { data: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { kind: 'usage-error', message: error instanceof Error ? error.message : String(error) };
  }
  if (values.help === true) return { kind: 'help' };
  const env: Record<string, string> = {};
  if (values.data !== undefined) env.PGW_DATA_DIR = values.data;
  if (values.port !== undefined) env.PORT = values.port;
  if (values.host !== undefined) env.HOST = values.host;
  return { kind: 'run', env };
}
