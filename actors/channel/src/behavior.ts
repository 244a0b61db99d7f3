import { ChatError, type ChannelCommand, type Command } from '@chat/protocol';
import type { ActorBehavior, ActorContext, Decision } from '@chat/runtime';
import { applyEvent, initialState, type ChannelEvent, type ChannelState } from './state.js';

function decide(ctx: ActorContext<ChannelState>, command: ChannelCommand): Decision<ChannelEvent> {
  const state = ctx.state;
  if (command.type === 'channel.create') {
    if (state.exists) throw new ChatError('BAD_REQUEST', `Channel '${state.info.name}' already exists`);
    const info = { ...command.channel, date_created: Math.floor(ctx.now / 1000) };
    return { events: [{ type: 'channelCreated', info }], reply: info };
  }
  if (!state.exists) throw new ChatError('BAD_REQUEST', 'Invalid channel ID');
  switch (command.type) {
    case 'channel.info':
      return { reply: state.info };
    case 'channel.subscribe': {
      const current = new Set(state.info.subscribers);
      const added = command.user_ids.filter((id) => !current.has(id));
      return { events: added.length > 0 ? [{ type: 'subscribed', userIds: added }] : [], reply: { added } };
    }
  }
}

export const channelBehavior: ActorBehavior<ChannelState, ChannelEvent> = {
  type: 'channel',
  eventVersion: 1,
  initial: initialState,
  handle: (ctx, command: Command) => decide(ctx, command as ChannelCommand),
  apply: applyEvent,
};
