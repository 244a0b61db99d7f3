import {
  ChatError,
  encode,
  messageLocationKey,
  realmAddress,
  realmOfKey,
  type ChannelProtocol,
  type ChannelSettings,
} from '@chat/protocol';
import { handlerTable, type ActorBehavior, type Decision, type Handlers, type StoreWrite } from '@chat/runtime';
import { hasMetadataAccess, invalidChannel, requireContentAccess } from './access.js';
import { decideEdit } from './edit/edit.js';
import { channelInfo, fanout, streamCreated, tellKnowledge, toOnlookers } from './events.js';
import { decideFetch, decideGet, decideMatch, firstUnread } from './fetch.js';
import {
  decideDelete,
  decideGuestRole,
  decideHistorical,
  decideHolders,
  decideReaction,
  decideTopicDelete,
  decideTopics,
} from './messages.js';
import { decideMoveIn } from './move/in.js';
import { decideMoveEnd, decideMoveOut, decideMovesTimer, resumeMoves } from './move/out.js';
import { toUsers } from './members.js';
import { checkSend, decideSend } from './send.js';
import { applyEvent, initialState, upcast, type ChannelEvent, type ChannelState } from './state.js';
import { decideSubmessage } from './submessage.js';
import { decideSubscribe, decideUnsubscribe } from './subscribe.js';
import { decideUpdate, directoryEntry } from './update.js';

const handlers: Handlers<ChannelState, ChannelEvent, ChannelProtocol> = {
  'channel.create': (ctx, command) => {
    const state = ctx.state;
    if (state.kind !== 'none') throw new ChatError('BAD_REQUEST', `Channel '${state.channel?.name}' already exists`);
    return created(ctx.address.key, command.channel, command.subscribers, command.color);
  },
  'channel.info': ({ state }, command) => {
    if (state.kind !== 'channel') throw invalidChannel();
    if (command.viewer && !hasMetadataAccess(state, command.viewer)) throw invalidChannel();
    return { reply: channelInfo(state) };
  },
  'channel.subscribe': decideSubscribe,
  'channel.unsubscribe': decideUnsubscribe,
  'channel.update': decideUpdate,
  'message.send': decideSend,
  'message.checkSend': ({ state, address }, command) => {
    checkSend(state, address.key, command.send);
    return { reply: null };
  },
  'message.fetch': decideFetch,
  'message.get': decideGet,
  'message.match': decideMatch,
  'message.firstUnread': (ctx, command) => {
    const state = ctx.state;
    if (state.kind === 'none') return { reply: null };
    requireContentAccess(state, command.viewer);
    return { reply: firstUnread(state, ctx.address.key, command.viewer) ?? null };
  },
  'message.edit': decideEdit,
  'message.delete': decideDelete,
  'topic.delete': decideTopicDelete,
  'reaction.add': decideReaction,
  'reaction.remove': decideReaction,
  'submessage.add': decideSubmessage,
  'message.holders': decideHolders,
  'message.historical': decideHistorical,
  'channel.guestRole': decideGuestRole,
  'channel.knowledge': (ctx, command) => {
    return { fanouts: tellKnowledge(ctx.state, ctx.address.key, command.gained, command.lost), reply: null };
  },
  'channel.messageCount': ({ state }) => ({ reply: state.messages.length }),
  'channel.report': ({ state, address }) => {
    if (state.kind !== 'channel') return { reply: null };
    const entry = directoryEntry(state.channel!);
    return {
      tells: [{ to: realmAddress(realmOfKey(address.key)), body: { type: 'realm.channelChanged', entry, fill: true } }],
      reply: null,
    };
  },
  'topic.list': decideTopics,
  'message.moveOut': decideMoveOut,
  'message.moveIn': decideMoveIn,
  'message.moveEnd': decideMoveEnd,
};

export const channelBehavior: ActorBehavior<ChannelState, ChannelEvent> = {
  type: 'channel',
  eventVersion: 2,
  initial: initialState,
  handle: handlerTable(handlers),
  apply: applyEvent,
  upcast,
  rows: (_state, event, address) => locationRows(address.key, event),
  // Only moves between channels keep timers: see move/out.ts.
  onActivate: resumeMoves,
  onTimer: (ctx, name) => (name === 'moves' ? decideMovesTimer(ctx) : {}),
};

/**
 * Keeps the message-location index in step with the conversation's messages.
 * A moved message's row is written by two conversations, maybe of two shards:
 * it is `shared`.
 */
function locationRows(key: string, event: ChannelEvent): StoreWrite[] {
  const realm = realmOfKey(key);
  const at = (id: number) => ({ ...messageLocationKey(realm, id), shared: true });
  const put = (id: number): StoreWrite => ({ ...at(id), op: 'put', value: encode({ key }) });
  switch (event.type) {
    case 'messageSent':
      return [put(event.message.id)];
    case 'messagesImported':
      return event.messages.map((m) => put(m.id));
    case 'messagesRemoved':
      return event.ids.map((id) => ({ ...at(id), op: 'del' }));
    default:
      return [];
  }
}

/** A new channel: its subscribers get `subscription` op `add`, and everyone who sees it `stream` op `create`. */
function created(
  key: string,
  channel: ChannelSettings,
  subscribers: number[],
  color: string | undefined,
): Decision<ChannelEvent, null> {
  const info = { ...channel, subscribers, first_message_id: null, last_message_id: null };
  const stream = streamCreated(info);
  return {
    events: [{ type: 'channelCreated', channel, subscribers }],
    tells: [toOnlookers(channel, key, [stream], subscribers)],
    fanouts: [
      toUsers(key, subscribers, {
        type: 'user.subscribed',
        channel_id: channel.stream_id,
        last_message_id: 0,
        channel: info,
        ...(color !== undefined ? { color } : {}),
      }),
      fanout(key, subscribers, [stream]),
    ],
    reply: null,
  };
}
