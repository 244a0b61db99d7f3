import type { Fixtures } from './matrix-fixtures.js';
import {
  adminsOnly,
  authenticated,
  badRequest,
  INVALID_CHANNEL,
  NOT_ADMIN,
  NO_GUESTS,
  OK,
  refused,
  type Operation,
} from './matrix-model.js';

/**
 * Channels. Reads target Denmark, public, without the guest and the bot:
 * a guest has no access to a public channel they are not subscribed to
 * (spec, Channel: `can_subscribe_group`: "everyone except guests"; the
 * original's "Invalid channel ID", reference get-stream-by-id 400), and
 * the other realm has no channel of this one.
 */
const made = { open: 'matrix open', leave: 'matrix leave', patch: 0, settings: 0 };
/** Denmark's id, looked up when the fixtures are made. */
const denmark = (fx: Fixtures) => fx.channels['Denmark']!;

async function prepare(fx: Fixtures): Promise<void> {
  const hamlet = 10;
  await fx.channel(made.open, [hamlet]);
  const { bot, guest, member, moderator, administrator, owner } = fx.callers;
  const everyone = [bot, guest, member, moderator, administrator, owner].map((c) => c.userId!);
  await fx.channel(made.leave, everyone);
  made.settings = await fx.channel(fx.unique('matrix settings'), everyone);
  made.patch = await fx.channel(fx.unique('matrix patch'), [fx.callers.member.userId!]);
}

const onDenmark = authenticated({ everyone: OK, guest: INVALID_CHANNEL, otherRealm: INVALID_CHANNEL });

/**
 * Changing or archiving a channel takes `can_administer_channel_group`,
 * which administrators hold for every channel (reference,
 * CanAdministerChannelGroup); the others here are not in it. A guest
 * lacks even metadata access to a public channel they are not in.
 */
const administer = authenticated({
  everyone: badRequest('You do not have permission to administer this channel.'),
  guest: INVALID_CHANNEL,
  administrator: OK,
  owner: OK,
  otherRealm: INVALID_CHANNEL,
});

export const channelCases: Operation[] = [
  {
    method: 'GET',
    template: '/users/me/subscriptions',
    prepare,
    request: () => ({ path: '/users/me/subscriptions' }),
    expect: authenticated({ everyone: OK }),
  },
  {
    // subscribe: everyone except guests (never through the API, the original's require_non_guest_user) may join a
    // public channel; the other realm, where it does not exist, creates its own channel of that name.
    method: 'POST',
    template: '/users/me/subscriptions',
    request: () => ({ path: '/users/me/subscriptions', params: { subscriptions: [{ name: made.open }] } }),
    expect: authenticated({ everyone: OK, guest: NO_GUESTS }),
  },
  {
    // Spec 13: leaving a channel one is in; the other realm has no channel by that name.
    method: 'DELETE',
    template: '/users/me/subscriptions',
    request: () => ({ path: '/users/me/subscriptions', params: { subscriptions: [made.leave] } }),
    expect: authenticated({
      everyone: OK,
      otherRealm: refused('STREAM_DOES_NOT_EXIST', `Channel '${made.leave}' does not exist`, { stream: made.leave }),
    }),
  },
  {
    // Every subscriber changes its own settings; the other realm has no channel of that id.
    method: 'POST',
    template: '/users/me/subscriptions/properties',
    request: () => ({
      path: '/users/me/subscriptions/properties',
      params: { subscription_data: [{ stream_id: made.settings, property: 'pin_to_top', value: true }] },
    }),
    expect: authenticated({ everyone: OK, otherRealm: INVALID_CHANNEL }),
  },
  {
    // Subscribing through `add`, as POST does.
    method: 'PATCH',
    template: '/users/me/subscriptions',
    request: () => ({ path: '/users/me/subscriptions', params: { add: [{ name: made.open }] } }),
    expect: authenticated({ everyone: OK, guest: NO_GUESTS }),
  },
  {
    // Not for guests (the original's require_non_guest_user), before any realm setting.
    method: 'POST',
    template: '/channels/create',
    request: (fx, caller) => ({
      path: '/channels/create',
      params: { name: fx.unique(`matrix by ${caller.role}`), subscribers: caller.userId ? [caller.userId] : [] },
    }),
    expect: authenticated({ everyone: OK, guest: NO_GUESTS }),
  },
  {
    method: 'GET',
    template: '/streams',
    request: () => ({ path: '/streams' }),
    expect: authenticated({ everyone: OK }),
  },
  {
    method: 'GET',
    template: '/streams/{stream_id}',
    request: (fx) => ({ path: `/streams/${denmark(fx)}` }),
    expect: onDenmark,
  },
  {
    // Spec 4.
    method: 'PATCH',
    template: '/streams/{stream_id}',
    request: (_fx, caller) => ({ path: `/streams/${made.patch}`, params: { description: `by ${caller.role}` } }),
    expect: administer,
  },
  {
    // A permission's value is checked once the caller may administer the channel: can_subscribe_group may not be
    // role:everyone (the original's GroupPermissionSetting, allow_everyone_group=False).
    method: 'PATCH',
    template: '/streams/{stream_id}',
    variant: 'can_subscribe_group',
    request: () => ({ path: `/streams/${made.patch}`, params: { can_subscribe_group: { new: 2 } } }),
    expect: {
      ...administer,
      administrator: badRequest("'can_subscribe_group' setting cannot be set to 'role:everyone' group."),
      owner: badRequest("'can_subscribe_group' setting cannot be set to 'role:everyone' group."),
    },
  },
  {
    // x-requires-administrator (archive-stream); each caller gets a channel of its own to archive.
    method: 'DELETE',
    template: '/streams/{stream_id}',
    request: async (fx, caller) => ({
      path: `/streams/${await fx.channel(fx.unique(`matrix attic ${caller.role}`), [fx.callers.member.userId!])}`,
    }),
    expect: administer,
  },
  {
    method: 'GET',
    template: '/get_stream_id',
    request: () => ({ path: '/get_stream_id', params: { stream: 'Denmark' } }),
    expect: authenticated({
      everyone: OK,
      guest: badRequest("Invalid channel name 'Denmark'"),
      otherRealm: badRequest("Invalid channel name 'Denmark'"),
    }),
  },
  {
    method: 'GET',
    template: '/streams/{stream_id}/members',
    request: (fx) => ({ path: `/streams/${denmark(fx)}/members` }),
    expect: onDenmark,
  },
  {
    method: 'GET',
    template: '/users/me/{stream_id}/topics',
    request: (fx) => ({ path: `/users/me/${denmark(fx)}/topics` }),
    expect: onDenmark,
  },
  {
    // Spec 12: "Organization administrators only", UNAUTHORIZED_PRINCIPAL otherwise (also the reference's 400).
    // The other realm's owner passes that check, then finds no such channel.
    method: 'POST',
    template: '/streams/{stream_id}/delete_topic',
    request: async (fx, caller) => {
      const topic = fx.unique(`doomed by ${caller.role}`);
      await fx.send(fx.admin, 'Verona', 'to be deleted', topic);
      return { path: `/streams/${fx.channels['Verona']}/delete_topic`, params: { topic_name: topic } };
    },
    expect: adminsOnly(NOT_ADMIN, INVALID_CHANNEL),
  },
  {
    // Spec 5.
    method: 'POST',
    template: '/user_topics',
    request: (fx) => ({
      path: '/user_topics',
      params: { stream_id: denmark(fx), topic: 'matrix', visibility_policy: 1 },
    }),
    expect: onDenmark,
  },
];

/**
 * Further rows of channel operations, run after every other row: the channels they create in the other realm
 * could take ids that other rows expect that realm not to have.
 */
export const channelLateCases: Operation[] = [
  {
    // Letting anyone delete their messages in a new channel takes the realm's can_set_delete_message_policy_group,
    // moderators by default (the original's access_requested_group_permissions_for_streams); the other realm's owner
    // holds it there.
    method: 'POST',
    template: '/channels/create',
    variant: 'can_delete_own_message_group',
    request: (fx, caller) => ({
      path: '/channels/create',
      params: {
        name: fx.unique(`matrix deletable by ${caller.role}`),
        subscribers: caller.userId ? [caller.userId] : [],
        can_delete_own_message_group: 2,
      },
    }),
    expect: authenticated({
      everyone: badRequest('Insufficient permission'),
      guest: NO_GUESTS,
      moderator: OK,
      administrator: OK,
      owner: OK,
      otherRealm: OK,
    }),
  },
  {
    // A default channel at creation: administrators only (the original's check_channel_creation_permissions).
    method: 'POST',
    template: '/channels/create',
    variant: 'is_default_stream',
    request: (fx, caller) => ({
      path: '/channels/create',
      params: {
        name: fx.unique(`matrix default by ${caller.role}`),
        subscribers: caller.userId ? [caller.userId] : [],
        is_default_stream: true,
      },
    }),
    expect: authenticated({
      everyone: badRequest('Insufficient permission'),
      guest: NO_GUESTS,
      administrator: OK,
      owner: OK,
      otherRealm: OK,
    }),
  },
];
