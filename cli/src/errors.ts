// The CLI's failures, each with its exit code (documented in `pgw --help` and cli/README.md).
export const EXIT = { ok: 0, api: 1, usage: 2, config: 3, unreachable: 4 } as const;

/** Exit 2: the command line is wrong (the message says how to fix it). */
export class UsageError extends Error {}
/** Exit 3: no usable configuration or credentials. */
export class ConfigError extends Error {}
/** Exit 4: the server cannot be reached. */
export class UnreachableError extends Error {}
/** Exit 1: the API answered with an error. */
export class ApiError extends Error {
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
