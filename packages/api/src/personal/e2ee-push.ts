import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError } from '@chat/protocol';
import { CallerContext } from '../context.js';
import type { ApiOptions } from '../options.js';
import { bouncerFailure, bouncerOf, humansOnly, testPayload } from './push-common.js';

/**
 * End-to-end encrypted push: a device registers with the bouncer through
 * this server (which cannot read the registration), starts `pending`, and
 * becomes `active` or `failed` when the bouncer answers (the user's clients
 * hear `push_device`); the test notification goes to active devices.
 */
export function e2eePushRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/mobile_push/register',
      auth: 'required',
      params: Type.Object({
        token_kind: Type.Union([Type.Literal('fcm'), Type.Literal('apns')]),
        push_account_id: Type.Integer({ description: "A random id of this account in the client's table." }),
        push_public_key: Type.String({ description: "The client's NaCl public key, base64." }),
        bouncer_public_key: Type.String({
          description: "Which of the bouncer's public keys encrypted the registration.",
        }),
        encrypted_push_registration: Type.String({ description: 'The encrypted PushRegistration, base64.' }),
      }),
      summary: 'Register E2EE push device',
      description: 'Registers a device for end-to-end encrypted push notifications, through the push bouncer.',
      tags: ['mobile'],
      async handler({ params, principal, actors, log }) {
        humansOnly(principal);
        const bouncer = bouncerOf(options);
        // The original takes both as they are: a bad registration is the bouncer's to refuse (a `failed` status).
        const me = new CallerContext(actors, principal).me;
        const device = {
          push_account_id: params.push_account_id,
          token_kind: params.token_kind,
          push_public_key: params.push_public_key,
          bouncer_public_key: params.bouncer_public_key,
          encrypted_push_registration: params.encrypted_push_registration,
        };
        const { registered } = await actors.ask(me, { type: 'user.registerE2eePush', device });
        if (!registered) return;
        // The bouncer's answer comes after this one, as a push_device event (the original queues it too).
        const { push_public_key: _, ...registration } = device;
        void bouncer
          .registerE2ee({ realm: principal.realm, user_id: principal.user_id, ...registration })
          .then(async (outcome) => {
            const failed = outcome !== 'registered';
            await actors.ask(me, {
              type: 'user.e2eePushStatus',
              push_account_id: params.push_account_id,
              status: failed ? 'failed' : 'active',
              error_code: failed ? outcome.error_code : null,
            });
          })
          .catch((err: unknown) => log.warn({ err }, 'E2EE push registration left pending'));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/mobile_push/e2ee/test_notification',
      auth: 'required',
      params: Type.Object({
        push_account_id: Type.Optional(Type.Integer({ description: "One device's push account id; all without it." })),
      }),
      summary: 'Send an E2EE test notification to mobile device(s)',
      description: 'Sends a push notification with `event: test` to active E2EE registrations.',
      tags: ['mobile'],
      async handler({ params, principal, actors }) {
        humansOnly(principal);
        const caller = new CallerContext(actors, principal);
        const bouncer = bouncerOf(options);
        const devices = await actors.ask(caller.me, {
          type: 'user.e2eePushDevices',
          ...(params.push_account_id !== undefined && { push_account_id: params.push_account_id }),
        });
        const active = devices.filter((d) => d.status === 'active');
        if (active.length === 0) throw new ChatError('NO_ACTIVE_PUSH_DEVICE', 'No active registered push device');
        const payload = await testPayload(options, caller);
        for (const device of active) {
          await bouncer
            .sendE2ee({
              realm: principal.realm,
              user_id: principal.user_id,
              push_account_id: device.push_account_id,
              push_public_key: device.push_public_key,
              payload,
            })
            .catch((err: unknown) => {
              throw bouncerFailure(err);
            });
        }
      },
    }),
  ];
}
