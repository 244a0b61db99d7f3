import {
  ChatError,
  type PersonalProtocol,
  type PushDevice,
  type PushDeviceCommand,
  type PushKind,
  type E2eePushDevice,
  pushDeviceChanged,
} from '@chat/protocol';
import { toOwnQueues } from '../queues.js';
import type { UserHandlers, UserState } from '../state.js';

/**
 * The user's registered mobile devices. Tokens are private: only this
 * user's own requests read them, and they raise no events (as in the
 * original, where registrations are not synchronized to other clients).
 */
export type PushState = PushDevice[];

export type PushEvent =
  | { type: 'pushDeviceAdded'; device: PushDevice }
  | { type: 'pushDeviceRemoved'; kind: PushKind; token: string }
  | { type: 'e2eePushSaved'; device: E2eePushDevice };

const same = (d: PushDevice, kind: PushKind, token: string) => d.kind === kind && d.token === token;

export function applyPushEvent(state: UserState, event: PushEvent): void {
  const devices = state.pushDevices ?? [];
  switch (event.type) {
    case 'pushDeviceAdded':
      // Registering a token again replaces it (a new app id, say), keeping one entry per token.
      state.pushDevices = [...devices.filter((d) => !same(d, event.device.kind, event.device.token)), event.device];
      return;
    case 'pushDeviceRemoved':
      state.pushDevices = devices.filter((d) => !same(d, event.kind, event.token));
      return;
    case 'e2eePushSaved':
      (state.e2eePushDevices ??= {})[event.device.push_account_id] = event.device;
      return;
  }
}

/** The `push_devices` register section: each E2EE registration's status, by push account id. */
export const pushDevicesSection = (state: UserState) =>
  Object.fromEntries(
    Object.values(state.e2eePushDevices ?? {}).map((d) => [
      String(d.push_account_id),
      { status: d.status, error_code: d.error_code },
    ]),
  );

/** Registering, dropping and reading the user's devices. */
export const pushHandlers: UserHandlers<Pick<PersonalProtocol, PushDeviceCommand['type']>> = {
  'user.addPushDevice': (_ctx, command) => ({
    events: [{ type: 'pushDeviceAdded', device: command.device }],
    reply: null,
  }),
  'user.removePushDevice': ({ state }, { kind, token }) => {
    if (!(state.pushDevices ?? []).some((d) => same(d, kind, token))) {
      throw new ChatError('BAD_REQUEST', 'Token does not exist');
    }
    return { events: [{ type: 'pushDeviceRemoved', kind, token }], reply: null };
  },
  'user.pushDevices': ({ state }, command) => {
    const devices = state.pushDevices ?? [];
    if (command.token === undefined) return { reply: devices };
    const found = devices.filter((d) => d.token === command.token);
    if (found.length === 0) throw new ChatError('INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized');
    return { reply: found };
  },
  'user.registerE2eePush': (ctx, { device }) => {
    // As the original: registering an account again is a no-op unless its last registration failed.
    const known = ctx.state.e2eePushDevices?.[device.push_account_id];
    if (known && known.error_code === null) return { reply: { registered: false } };
    return {
      events: [{ type: 'e2eePushSaved', device: { ...device, status: 'pending', error_code: null } }],
      reply: { registered: true },
    };
  },
  'user.e2eePushStatus': (ctx, { push_account_id, status, error_code }) => {
    const device = ctx.state.e2eePushDevices?.[push_account_id];
    if (!device) return { reply: null };
    return {
      events: [{ type: 'e2eePushSaved', device: { ...device, status, error_code } }],
      reply: null,
      tells: toOwnQueues(ctx.address.key, ctx.state, [pushDeviceChanged(push_account_id, status, error_code)]),
    };
  },
  'user.e2eePushDevices': ({ state }, { push_account_id }) => {
    const all = Object.values(state.e2eePushDevices ?? {});
    return { reply: push_account_id === undefined ? all : all.filter((d) => d.push_account_id === push_account_id) };
  },
};
