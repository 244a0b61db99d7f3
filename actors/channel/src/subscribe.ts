import {
  ChatError,
  mayAddSubscribers,
  peerEvent,
  ROLES,
  type ChannelCommand,
  type UserRef,
  unableToAccessChannel,
} from '@chat/protocol';
import type { ActorContext } from '@chat/runtime';
import { can, canAdminister, hasContentAccess, invalidChannel, isMember, type Actor } from './access.js';
import { channelInfo, fanout, toOnlookers } from './events.js';
import { toUsers } from './members.js';
import { lastMessageId, type ChannelState, type ChannelDecision } from './state.js';

type Subscribe = Extract<ChannelCommand, { type: 'channel.subscribe' }>;
type Unsubscribe = Extract<ChannelCommand, { type: 'channel.unsubscribe' }>;

/**
 * Subscribing others (the original's `get_streams_to_which_user_cannot_add_subscribers`, asked of a
 * channel one reads): the same rule the edge applies to invitations' channels
 * (packages/api/src/invitations/checks.ts).
 */
const mayAddOthers = (state: ChannelState, who: Actor, cmd: Subscribe) =>
  mayAddSubscribers(who, state.channel!, isMember(state, who.user_id), cmd.settings.can_add_subscribers_group);

export function decideSubscribe(ctx: ActorContext<ChannelState>, cmd: Subscribe): ChannelDecision<'channel.subscribe'> {
  const state = ctx.state;
  if (state.kind !== 'channel') throw invalidChannel();
  const channel = state.channel!;
  const actor = cmd.actor;
  if (actor) {
    // As the original's filter_stream_authorization_for_adding_subscribers: a channel one cannot read
    // (content access: a guest a web-public one, a group's member a private one, administrators no more)
    // is refused before anything else, joining or adding others alike; the edge lists it as `unauthorized`.
    // An archived channel takes subscribers as any other (feature level 362).
    if (!hasContentAccess(state, actor)) throw unableToAccessChannel(channel.name);
    const self = cmd.users.length === 1 && cmd.users[0]!.user_id === actor.user_id;
    if (!self && !mayAddOthers(state, actor, cmd)) throw new ChatError('BAD_REQUEST', 'Insufficient permission');
  }
  const added = cmd.users.filter((u) => !isMember(state, u.user_id)).map((u) => u.user_id);
  const already = cmd.users.filter((u) => isMember(state, u.user_id)).map((u) => u.user_id);
  if (added.length === 0) return { reply: { added, already } };
  // Each new subscriber's actor raises `subscription` op `add`, with its personal settings.
  const members = [...state.members, ...added].sort((a, b) => a - b);
  const subscribed = toUsers(ctx.address.key, added, {
    type: 'user.subscribed',
    channel_id: channel.stream_id,
    last_message_id: lastMessageId(state),
    channel: channelInfo(state, members),
    ...(cmd.color !== undefined ? { color: cmd.color } : {}),
  });
  const peer = peerEvent('peer_add', channel.stream_id, added);
  // Those who see the channel keep its subscriber count; new subscribers get the whole list instead.
  const tells = [toOnlookers(channel, ctx.address.key, [peer], members)];
  // A present subscriber with events to hear first gets them in the one delivery, ahead of the peer_add.
  const first = new Map((cmd.first ?? []).filter((f) => isMember(state, f.user_id)).map((f) => [f.user_id, f.events]));
  const peers = fanout(
    ctx.address.key,
    state.members.filter((id) => !first.has(id)),
    [peer],
  );
  const ahead = [...first].map(([id, events]) => fanout(ctx.address.key, [id], [...events, peer]));
  return {
    events: [{ type: 'subscribed', userIds: added }],
    tells,
    fanouts: [subscribed, peers, ...ahead],
    reply: { added, already },
  };
}

function mayRemove(state: ChannelState, actor: Actor, user: UserRef): boolean {
  if (user.user_id === actor.user_id || canAdminister(state, actor)) return true;
  if (!hasContentAccess(state, actor)) return false;
  if (user.is_bot && user.bot_owner_id === actor.user_id) return true;
  return can(state, 'can_remove_subscribers_group', actor);
}

export function decideUnsubscribe(
  ctx: ActorContext<ChannelState>,
  cmd: Unsubscribe,
): ChannelDecision<'channel.unsubscribe'> {
  const state = ctx.state;
  if (state.kind !== 'channel') throw invalidChannel();
  for (const user of cmd.users) {
    if (!mayRemove(state, cmd.actor, user)) throw new ChatError('BAD_REQUEST', 'Insufficient permission');
  }
  const removed = cmd.users.filter((u) => isMember(state, u.user_id)).map((u) => u.user_id);
  const notSubscribed = cmd.users.filter((u) => !isMember(state, u.user_id)).map((u) => u.user_id);
  if (removed.length === 0) return { reply: { removed, not_subscribed: notSubscribed } };
  const channel = state.channel!;
  const guests = cmd.users.filter((u) => u.role === ROLES.guest && removed.includes(u.user_id)).map((u) => u.user_id);
  const unsubscribed = toUsers(ctx.address.key, removed, {
    type: 'user.unsubscribed',
    channel_id: channel.stream_id,
    name: channel.name,
  });
  const remaining = state.members.filter((id) => !removed.includes(id));
  const peer = peerEvent('peer_remove', channel.stream_id, removed);
  return {
    events: [{ type: 'unsubscribed', userIds: removed, ...(guests.length > 0 ? { guests } : {}) }],
    tells: [toOnlookers(channel, ctx.address.key, [peer], state.members)],
    fanouts: [unsubscribed, fanout(ctx.address.key, remaining, [peer])],
    reply: { removed, not_subscribed: notSubscribed },
  };
}
