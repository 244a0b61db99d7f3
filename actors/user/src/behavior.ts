import {
  channelAddress,
  subscriptionAddEvent,
  subscriptionRemoved,
  userTopicEvent,
  ChatError,
  decode,
  inRanges,
  realmOfKey,
  messageLocationKey,
  newSubscription,
  type UserProtocol,
  type UserSnapshot,
} from '@chat/protocol';
import { handlerTable, readMany, type ActorBehavior, type ActorContext, type Decision } from '@chat/runtime';
import { deliver, flagsEvent, subscriptionUpdates, toOwnQueues } from './queues.js';
import { attachmentHandlers, attachmentRows } from './attachments.js';
import { decideAddQueue, deliverPublic, listenerTells } from './all-public.js';
import { decideMoved } from './moved.js';
import { personalHandlers } from './personal/personal.js';
import { settingsHandlers } from './settings.js';
import { decideTopicActivity, policyOnSend, setPolicy } from './auto-topics.js';
import { mutingHandlers, onArrival } from './muting.js';
import { arm, hasScheduled, scheduledHandlers, sendDue, TIMER, type DirectAccess } from './personal/scheduled.js';
import { decideConversation, withoutPartnerRemoves } from './direct-access.js';
import { applyEvent, initialState, type UserEvent, type UserHandlers, type UserState } from './state.js';

type Ctx = ActorContext<UserState>;

// Colors handed to new subscriptions in turn, so neighbouring channels differ.
const COLORS = ['#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5', '#f5ce6e'];

function snapshot(state: UserState): UserSnapshot {
  return {
    subscriptions: state.subscriptions,
    unsubscribed: state.unsubscribed,
    conversations: Object.values(state.conversations),
    read: state.read,
    starred: state.starred,
    unread_own: state.unreadOwn,
    user_topics: Object.values(state.topics),
    alerted: state.alerted ?? [],
    muted_user_ids: Object.keys(state.mutedUsers ?? {}).map(Number),
  };
}

/** Reads the message-location index the ChannelActors write. */
async function locate(ctx: Ctx, ids: number[]): Promise<Decision<UserEvent, Record<string, string | null>>> {
  const realm = realmOfKey(ctx.address.key);
  // One read for all (a mark of 20 messages was 20 reads one after the other, the user's mailbox waiting).
  const rows = await readMany(
    ctx.store,
    ids.map((id) => messageLocationKey(realm, id)),
  );
  const found: Record<string, string | null> = {};
  ids.forEach((id, i) => {
    const bytes = rows[i];
    found[id] = bytes ? decode<{ key: string }>(bytes).key : null;
  });
  return { reply: found };
}

const handlers: UserHandlers<UserProtocol> = {
  ...personalHandlers,
  ...settingsHandlers,
  ...attachmentHandlers,
  ...mutingHandlers,
  ...scheduledHandlers,
  'user.subscribed': (ctx, command) => {
    const state = ctx.state;
    if (state.subscriptions[command.channel_id]) return {};
    const color = command.color ?? COLORS[Object.keys(state.subscriptions).length % COLORS.length]!;
    const channelKey = channelAddress(realmOfKey(ctx.address.key), command.channel_id).key;
    const { channel_id: channelId, last_message_id: lastMessageId } = command;
    const tells = command.channel
      ? toOwnQueues(ctx.address.key, state, [subscriptionAddEvent(command.channel, newSubscription(color))])
      : [];
    return { events: [{ type: 'subscribed', channelKey, channelId, color, lastMessageId }], tells };
  },
  'user.unsubscribed': (ctx, command) => {
    const state = ctx.state;
    if (!state.subscriptions[command.channel_id]) return {};
    const gone = subscriptionRemoved(command.channel_id, command.name);
    return {
      events: [{ type: 'unsubscribed', channelId: command.channel_id }],
      tells: toOwnQueues(ctx.address.key, state, [gone]),
    };
  },
  'user.conversation': (ctx, command) => {
    return decideConversation(ctx, command);
  },
  'user.state': ({ state }) => {
    return { reply: snapshot(state) };
  },
  'user.locate': (ctx, command) => {
    return locate(ctx, command.ids);
  },
  'user.sent': (ctx, command) => {
    const state = ctx.state;
    const at = Math.floor(ctx.now / 1000);
    const target = { id: command.message_id, key: command.key, own: true };
    const events: UserEvent[] = command.read
      ? []
      : [{ type: 'flagsChanged', op: 'remove', flag: 'read', targets: [target] }];
    const topic = command.topic;
    const policy = topic && policyOnSend(state, topic.channel_id, topic.topic, topic.new_topic);
    if (!topic || policy === undefined) return { events, reply: {} };
    // The automatic read of one's own message raises no event; the automatic policy does.
    const set = setPolicy(ctx.address.key, state, at, topic, policy);
    return {
      events: [...events, ...set.events!],
      tells: set.tells,
      reply: { automatic_new_visibility_policy: policy },
    };
  },
  'user.topicActivity': (ctx, command) => {
    return decideTopicActivity(ctx.address.key, ctx.state, Math.floor(ctx.now / 1000), command);
  },
  'user.flags': (ctx, command) => {
    const state = ctx.state;
    const changed = command.messages.filter((m) => {
      const has =
        command.flag === 'starred'
          ? state.starred.includes(m.id)
          : m.own
            ? !state.unreadOwn.includes(m.id)
            : isRead(state, m.key, m.id);
      return command.op === 'add' ? !has : has;
    });
    const reply = { messages: changed.map((m) => m.id) };
    if (changed.length === 0) return { reply };
    // The original's historical row of a star is read (and starred); made silently.
    const rows = new Set(command.op === 'add' && command.flag === 'starred' ? (command.historical ?? []) : []);
    const unread = changed.filter((m) => rows.has(m.id) && !isRead(state, m.key, m.id));
    const read: UserEvent[] =
      unread.length > 0 ? [{ type: 'flagsChanged', op: 'add', flag: 'read', targets: unread }] : [];
    return {
      events: [...read, { type: 'flagsChanged', op: command.op, flag: command.flag, targets: changed }],
      tells: toOwnQueues(ctx.address.key, state, [flagsEvent(command, changed)]),
      reply,
    };
  },
  'user.setTopic': (ctx, command) => {
    const state = ctx.state;
    const at = Math.floor(ctx.now / 1000);
    const { channel_id: channelId, topic, visibility_policy: policy } = command;
    return {
      events: [{ type: 'topicPolicySet', channelId, topic, policy, at }],
      tells: toOwnQueues(ctx.address.key, state, [userTopicEvent(channelId, topic, policy, at)]),
      reply: null,
    };
  },
  'user.subscriptionProperty': (ctx, command) => {
    const state = ctx.state;
    if (!state.subscriptions[command.channel_id]) {
      throw new ChatError('BAD_REQUEST', 'Not subscribed to channel ID ' + command.channel_id);
    }
    const { channel_id: channelId, property, value } = command;
    return {
      events: [{ type: 'subscriptionChanged', channelId, property, value }],
      tells: toOwnQueues(ctx.address.key, state, subscriptionUpdates(channelId, property, value)),
      reply: null,
    };
  },
  'user.addQueue': (ctx, command) => {
    const state = ctx.state;
    return decideAddQueue(ctx.address.key, state, command.queue_id, command.all_public_streams === true);
  },
  'user.removeQueue': (ctx, command) => {
    const state = ctx.state;
    const removed: UserEvent = { type: 'queueRemoved', queueId: command.queue_id };
    return (state.queues ?? []).includes(command.queue_id)
      ? { events: [removed], tells: listenerTells(ctx.address.key, state, removed) }
      : {};
  },
  'user.deliver': (ctx, command) => {
    const state = ctx.state;
    const events = withoutPartnerRemoves(state, command.events);
    const arrival = onArrival(ctx.address.key, state, events);
    const passed = deliver(ctx.address.key, state, events, arrival.flags);
    // The tells hold new events around parts of the delivery received, the changes are new: no copies.
    return { ...passed, ...(arrival.changes.length > 0 ? { events: arrival.changes } : {}), uncopied: true };
  },
  'user.deliverPublic': (ctx, command) => {
    const state = ctx.state;
    return deliverPublic(ctx.address.key, state, command.events);
  },
  'user.moved': ({ state }, command) => {
    return decideMoved(state, command);
  },
  'user.historical': ({ state }, { key, message_id }) => {
    if (isRead(state, key, message_id)) return {};
    const targets = [{ id: message_id, key, own: false }];
    // No event to the user's queues: the original makes the row silently.
    return { events: [{ type: 'flagsChanged', op: 'add', flag: 'read', targets }] };
  },
};

function isRead(state: UserState, key: string, id: number): boolean {
  return inRanges(state.read[key] ?? [], id);
}

export const userBehavior: ActorBehavior<UserState, UserEvent> = {
  type: 'user',
  eventVersion: 1,
  initial: initialState,
  handle: handlerTable(handlers),
  apply: applyEvent,
  rows: (_state, event, address) => attachmentRows(address, event),
  onTimer: (ctx, name) => (name === TIMER ? sendDue(ctx) : {}),
  onActivate: (ctx) => arm(ctx),
  canPassivate: (state) => !hasScheduled(state),
};

/** The UserActor whose due direct messages carry what a direct send carries for restricted guests (`DirectAccess`). */
export const userBehaviorWith = (directAccess: DirectAccess): ActorBehavior<UserState, UserEvent> => ({
  ...userBehavior,
  onTimer: (ctx, name) => (name === TIMER ? sendDue(ctx, directAccess) : {}),
});
