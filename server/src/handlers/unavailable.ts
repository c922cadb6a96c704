// Handler groups this server does not serve yet: each operation answers 500 with errorCode
// `not_available` and says which operation, rather than pretending. (Webhooks come with their own issue.)
import { routes } from '../../../generated/index.ts';
import type { Handlers } from '../../../generated/handlers.ts';
import type { ServerContext } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';

type Groups = Handlers<ServerContext>;

export function unavailable<G extends keyof Groups>(group: G): Groups[G] {
  const operations = routes.filter((route) => route.group === group);
  if (operations.length === 0) throw new Error(`no operations in group ${group}`);
  return Object.fromEntries(
    operations.map((route) => [
      route.operationId,
      () => Promise.reject(new ApiError('not_available', { details: `${route.operationId} is not available on this server yet.` })),
    ]),
  ) as unknown as Groups[G];
}
