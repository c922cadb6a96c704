// HTTP of the read-only merchant configuration: payment configuration and contact addresses.
import type { ConfigurationHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { ServerContext } from '../platform/context.ts';
import { contactInfos, paymentConfiguration } from '../services/merchants.ts';

export const configurationHandlers = {
  async getPaymentConfiguration(_input: op.GetPaymentConfigurationInput, context: ServerContext): Promise<op.GetPaymentConfigurationResult> {
    return { status: 200, body: await paymentConfiguration(context.merchant()) };
  },

  async listContactInfos(_input: op.ListContactInfosInput, context: ServerContext): Promise<op.ListContactInfosResult> {
    return { status: 200, body: { contactInfos: await contactInfos(context.merchant()) } };
  },
} satisfies ConfigurationHandlers<ServerContext>;
