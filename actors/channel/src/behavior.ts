import { ChatError, encode, messageLocationKey, realmOfKey, type ChannelCommand, type Command } from '@chat/protocol';
import type { ActorBehavior, ActorContext, Decision, StoreWrite } from '@chat/runtime';
import { hasMetadataAccess, invalidChannel, requireContentAccess } from './access.js';
import { decideEdit } from './edit.js';
import { channelInfo } from './events.js';
import { decideFetch, decideGet, decideMatch, firstUnread } from './fetch.js';
import { decideDelete, decideReaction, decideTopicDelete, decideTopics } from './messages.js';
import { userTells } from './members.js';
import { decideSend } from './send.js';
import { applyEvent, initialState, upcast, type ChannelEvent, type ChannelState } from './state.js';
import { decideSubscribe, decideUnsubscribe } from './subscribe.js';
import { decideUpdate } from './update.js';

type Ctx = ActorContext<ChannelState>;

function decide(ctx: Ctx, command: ChannelCommand): Decision<ChannelEvent> {
  const state = ctx.state;
  switch (command.type) {
    case 'channel.create':
      if (state.kind !== 'none') throw new ChatError('BAD_REQUEST', `Channel '${state.channel?.name}' already exists`);
      return {
        events: [{ type: 'channelCreated', channel: command.channel, subscribers: command.subscribers }],
        tells: userTells(ctx.address.key, command.subscribers, {
          type: 'user.subscribed',
          channel_id: command.channel.stream_id,
          last_message_id: 0,
          channel: {
            ...command.channel,
            subscribers: command.subscribers,
            first_message_id: null,
            last_message_id: null,
          },
        }),
        reply: null,
      };
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
};

/** Keeps the message-location index in step with the conversation's messages. */
function locationRows(key: string, event: ChannelEvent): StoreWrite[] {
  const realm = realmOfKey(key);
  const put = (id: number): StoreWrite => ({ ...messageLocationKey(realm, id), op: 'put', value: encode({ key }) });
  switch (event.type) {
    case 'messageSent':
      return [put(event.message.id)];
    case 'messagesImported':
      return event.messages.map((m) => put(m.id));
    case 'messagesRemoved':
      return event.ids.map((id) => ({ ...messageLocationKey(realm, id), op: 'del' }));
    default:
      return [];
  }
}
