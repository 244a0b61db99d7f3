import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, type PushDevice, type PushKind } from '@chat/protocol';
import { CallerContext } from '../context.js';
import type { ApiOptions } from '../options.js';
import { bouncerFailure, bouncerOf, humansOnly, testPayload } from './push-common.js';

const MAX_TOKEN_LENGTH = 4096;
/** The original's `ApnsAppId`: a bundle id of letters, digits, dots and dashes, checked before the token. */
const APP_ID = /^[.a-zA-Z0-9-]+$/;

/**
 * Whether Python's `base64.b64decode` (not strict) decodes the text: ASCII
 * only; it skips characters outside the alphabet and needs whole groups of
 * four, padding counted, stopping at a complete padding.
 */
function pythonDecodesBase64(text: string): boolean {
  if (!/^[\x00-\x7f]*$/.test(text)) return false;
  let place = 0;
  let pads = 0;
  for (const c of text) {
    if (c === '=') {
      if (place >= 2 && place + ++pads >= 4) return true;
    } else if (/[A-Za-z0-9+/]/.test(c)) {
      pads = 0;
      place = (place + 1) % 4;
    }
  }
  return place === 0;
}

/**
 * The original's checks (`validate_token`): a token of sane length; an APNs
 * token must decode as the original decodes it (`b64_to_hex`), which
 * the hex tokens apps send do.
 */
function checkToken(token: string, kind: PushKind): string {
  if (token === '' || token.length > MAX_TOKEN_LENGTH)
    throw new ChatError('BAD_REQUEST', 'Empty or invalid length token');
  if (kind === 'apns' && !pythonDecodesBase64(token)) throw new ChatError('BAD_REQUEST', 'Invalid APNS token');
  return token;
}

/** The routes registering and removing one kind of device token. */
function tokenRoutes(kind: PushKind, path: string, label: string): Route[] {
  const register = defineRoute({
    method: 'POST',
    path,
    auth: 'required',
    params:
      kind === 'apns'
        ? Type.Object({ token: Type.String(), appid: Type.String({ description: "The iOS app's bundle id." }) })
        : Type.Object({ token: Type.String() }),
    summary: `Add ${label}`,
    description: `Registers one of the caller's devices for push notifications (the legacy, unencrypted kind).`,
    tags: ['users'],
    async handler({ params, principal, actors }) {
      humansOnly(principal);
      const appid = 'appid' in params ? params.appid : undefined;
      if (appid !== undefined && !APP_ID.test(appid)) throw new ChatError('BAD_REQUEST', 'Invalid app ID');
      const device: PushDevice = { kind, token: checkToken(params.token, kind) };
      if (appid !== undefined) device.appid = appid;
      await actors.ask(new CallerContext(actors, principal).me, { type: 'user.addPushDevice', device });
      return {};
    },
  });
  const remove = defineRoute({
    method: 'DELETE',
    path,
    auth: 'required',
    params: Type.Object({ token: Type.String() }),
    summary: `Remove ${label}`,
    description: "Forgets one of the caller's registered devices.",
    tags: ['users'],
    async handler({ params, principal, actors }) {
      humansOnly(principal);
      const token = checkToken(params.token, kind);
      await actors.ask(new CallerContext(actors, principal).me, { type: 'user.removePushDevice', kind, token });
      return {};
    },
  });
  return [register, remove];
}

export function pushRoutes(options: ApiOptions): Route[] {
  return [
    ...tokenRoutes('apns', '/users/me/apns_device_token', 'an APNs device token'),
    ...tokenRoutes('fcm', '/users/me/android_gcm_reg_id', 'an FCM registration token'),
    defineRoute({
      method: 'POST',
      path: '/mobile_push/test_notification',
      auth: 'required',
      params: Type.Object({
        token: Type.Optional(Type.String({ description: "One device's token; all the caller's devices without it." })),
      }),
      summary: 'Send a test notification to mobile devices',
      description: 'Sends a push notification with `event: test` through the push bouncer.',
      tags: ['mobile'],
      async handler({ params, principal, actors }) {
        humansOnly(principal);
        const caller = new CallerContext(actors, principal);
        const devices = await actors.ask(caller.me, { type: 'user.pushDevices', token: params.token });
        const bouncer = bouncerOf(options);
        const payload = await testPayload(options, caller);
        for (const device of devices) {
          const notification = { realm: principal.realm, user_id: principal.user_id, device, payload };
          const outcome = await bouncer.send(notification).catch((err: unknown) => {
            throw bouncerFailure(err);
          });
          if (outcome === 'unknown_token') {
            throw new ChatError('INVALID_REMOTE_PUSH_DEVICE_TOKEN', 'Device not recognized by the push bouncer');
          }
        }
        return {};
      },
    }),
  ];
}
