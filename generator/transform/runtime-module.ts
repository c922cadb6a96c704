// Where generated code finds its run-time library: the @pgw/runtime package, as openapi-typescript's output finds openapi-fetch.
export const runtimeModule = {
  /** The Express router, request validation and dispatch (needs express, ajv, ajv-formats, lossless-json). */
  router: '@pgw/runtime/router',
  /** The router's types only: what operations.ts and handlers.ts name, loading nothing at run time. */
  routerTypes: '@pgw/runtime/router-types',
  /** Token handling and idempotency keys for the typed client (needs openapi-fetch). */
  client: '@pgw/runtime/client',
  /** Standard Webhooks signing and verification, and the event-shape check (node:crypto only). */
  webhooks: '@pgw/runtime/webhooks',
} as const;
