// HTTP of the tap-to-pay devices: token, activation, read and list.
import type { DevicesHandlers } from '@pgw/client/handlers';
import type * as op from '@pgw/client/operations';
import type { components } from '@pgw/client/types';
import type { ServerContext } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import type { DeviceRecord } from '../repositories/devices.ts';
import * as devices from '../services/devices.ts';

function toDevice(device: DeviceRecord): components['schemas']['Device'] {
  const status = devices.statusName(device.statusId);
  return {
    deviceId: device.deviceId,
    deviceName: device.deviceName,
    lastLoginAt: device.lastLoginAt,
    apiKeyName: device.apiKeyName,
    tapToPayStatus: status,
    tapToPayStatusId: device.statusId as devices.TapToPayStatusId,
    tapToPayEnabled: status === 'Active',
    // Users sign in through the merchant's applications, not this API: the bundled server has none.
    userProfiles: [],
  };
}

export const devicesHandlers = {
  async issueTapToPayToken(input: op.IssueTapToPayTokenInput, context: ServerContext): Promise<op.IssueTapToPayTokenResult> {
    // The router authenticated the caller; a token route has no principal, and this is not one.
    if (!context.principal) throw new ApiError('internal_error');
    const token = await devices.issueToken(context.merchant(), context.principal.keyName, input.body.deviceId);
    return { status: 200, body: { jwtToken: token.jwtToken, expiresAt: token.expiresAt } };
  },
  async activateTapToPayDevice(input: op.ActivateTapToPayDeviceInput, context: ServerContext): Promise<op.ActivateTapToPayDeviceResult> {
    await devices.activate(context.merchant(), input.path.deviceId);
    return { status: 200 };
  },
  async listDevices(input: op.ListDevicesInput, context: ServerContext): Promise<op.ListDevicesResult> {
    const { items, total } = await devices.listDevices(context.merchant(), input.query);
    return { status: 200, body: { items: items.map(toDevice), total } };
  },
  async getDevice(input: op.GetDeviceInput, context: ServerContext): Promise<op.GetDeviceResult> {
    return { status: 200, body: toDevice(await devices.getDevice(context.merchant(), input.path.deviceId)) };
  },
} satisfies DevicesHandlers<ServerContext>;
