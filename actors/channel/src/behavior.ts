import {
  ChatError,
  encode,
  messageLocationKey,
  realmOfKey,
  type ChannelCommand,
  type ChannelSettings,
  type Command,
} from '@chat/protocol';
import type { ActorBehavior, ActorContext, Decision, StoreWrite } from '@chat/runtime';
import { hasMetadataAccess, invalidChannel, requireContentAccess } from './access.js';
import { decideEdit } from './edit/edit.js';
import { channelInfo, fanout, streamCreated, toOnlookers } from './events.js';
import { decideFetch, decideGet, decideMatch, firstUnread } from './fetch.js';
import { decideDelete, decideReaction, decideTopicDelete, decideTopics } from './messages.js';
import { decideMoveIn } from './move/in.js';
import { decideMoveEnd, decideMoveOut, decideMovesTimer, resumeMoves } from './move/out.js';
import { toUsers } from './members.js';
import { decideSend } from './send.js';
import { applyEvent, initialState, upcast, type ChannelEvent, type ChannelState } from './state.js';
import { decideSubscribe, decideUnsubscribe } from './subscribe.js';
import { decideUpdate } from './update.js';

type Ctx = ActorContext<ChannelState>;

function decide(ctx: Ctx, command: ChannelCommand): Decision<ChannelEvent> | Promise<Decision<ChannelEvent>> {
  const state = ctx.state;
  switch (command.type) {
    case 'channel.create':
      if (state.kind !== 'none') throw new ChatError('BAD_REQUEST', `Channel '${state.channel?.name}' already exists`);
      return created(ctx.address.key, command.channel, command.subscribers, command.color);
    case 'channel.info':
      if (state.kind !== 'channel') throw invalidChannel();
      if (command.viewer && !hasMetadataAccess(state, command.viewer)) throw invalidChannel();
      return { reply: channelInfo(state) };
    case 'channel.subscribe':
      return decideSubscribe(ctx, command);
    case 'channel.unsubscribe':
      return decideUnsubscribe(ctx, command);
    case 'channel.update':
      return decideUpdate(ctx, command);
    case 'message.send':
      return decideSend(ctx, command);
    case 'message.fetch':
      return decideFetch(ctx, command);
    case 'message.get':
      return decideGet(ctx, command);
    case 'message.match':
      return decideMatch(ctx, command);
    case 'message.firstUnread':
      if (state.kind === 'none') return { reply: null };
      requireContentAccess(state, command.viewer);
      return { reply: firstUnread(state, ctx.address.key, command.viewer) ?? null };
    case 'message.edit':
      return decideEdit(ctx, command);
    case 'message.delete':
      return decideDelete(ctx, command);
    case 'topic.delete':
      return decideTopicDelete(ctx, command);
    case 'reaction.add':
    case 'reaction.remove':
      return decideReaction(ctx, command);
    case 'topic.list':
      return decideTopics(ctx, command);
    case 'message.moveOut':
      return decideMoveOut(ctx, command);
    case 'message.moveIn':
      return decideMoveIn(ctx, command);
    case 'message.moveEnd':
      return decideMoveEnd(ctx, command);
  }
}

export const channelBehavior: ActorBehavior<ChannelState, ChannelEvent> = {
  type: 'channel',
  eventVersion: 2,
  initial: initialState,
  handle: (ctx, command: Command) => decide(ctx, command as ChannelCommand),
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
): Decision<ChannelEvent> {
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
