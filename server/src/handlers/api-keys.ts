// HTTP of the merchant's API keys.
import type { ApiKeysHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import { createKey, deleteKey, listKeys } from '../services/api-keys.ts';

export const apiKeysHandlers = {
  async listApiKeys(input: op.ListApiKeysInput, context: ServerContext): Promise<op.ListApiKeysResult> {
    return { status: 200, body: await listKeys(context.merchant(), input.query) };
  },
  async createApiKey(input: op.CreateApiKeyInput, context: ServerContext): Promise<op.CreateApiKeyResult> {
    return { status: 200, body: await createKey(context.merchant(), input.body.name) };
  },
  async deleteApiKey(input: op.DeleteApiKeyInput, context: ServerContext): Promise<op.DeleteApiKeyResult> {
    await deleteKey(context.merchant(), input.path.clientId);
    return { status: 200 };
  },
} satisfies ApiKeysHandlers<ServerContext>;
