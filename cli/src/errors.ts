// The CLI's failures, each with its exit code (documented in `pgw --help` and cli/README.md). A message often
// carries the server's or a fixture's words: it is made terminal-safe here, once for every command (terminal.ts).
import { terminalSafe } from './terminal.ts';

export const EXIT = { ok: 0, api: 1, usage: 2, config: 3, unreachable: 4 } as const;

/** A failure of the CLI: its message, with control characters and escape sequences escaped. */
class CliError extends Error {
  constructor(message: string) {
    super(terminalSafe(message));
  }
}

/** Exit 2: the command line is wrong (the message says how to fix it). */
export class UsageError extends CliError {}
/** Exit 3: no usable configuration or credentials. */
export class ConfigError extends CliError {}
/** Exit 4: the server cannot be reached. */
export class UnreachableError extends CliError {}
/** Exit 1: the API answered with an error. */
export class ApiError extends CliError {
  constructor(message: string, readonly status: number, readonly body: unknown) {
    super(message);
  }
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof ConfigError) return EXIT.config;
  if (error instanceof UnreachableError) return EXIT.unreachable;
  return EXIT.api;
}
