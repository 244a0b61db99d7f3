import {
  ChatError,
  isAdministrator,
  isGuest,
  type DefaultChannelProtocol,
  notAdministrator,
  defaultStreamsEvent,
} from '@chat/protocol';
import { toEveryone } from './broadcast.js';
import type { RealmHandlers, RealmState } from './state.js';

/** A channel joins or leaves the default channels. */
export interface DefaultChannelSetEvent {
  type: 'defaultChannelSet';
  channelId: number;
  isDefault: boolean;
}

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

export const defaultChannelIds = (state: RealmState): number[] =>
  Object.values(state.channels)
    .filter((c) => c.is_default && !c.is_archived)
    .map((c) => c.channel_id)
    .sort((a, b) => a - b);

export const defaultChannelHandlers: RealmHandlers<DefaultChannelProtocol> = {
  'realm.defaultChannels': ({ state }) => ({ reply: defaultChannelIds(state) }),
  'realm.setDefaultChannel': ({ state }, cmd) => {
    const actor = state.accounts[cmd.actor_id];
    if (!actor?.isActive || !isAdministrator(actor)) {
      throw notAdministrator();
    }
    const channel = state.channels[cmd.channel_id];
    if (!channel || channel.is_archived) throw bad('Invalid channel ID');
    if (cmd.is_default && channel.invite_only) throw bad('Private channels cannot be made default.');
    if (channel.is_default === cmd.is_default) return { reply: null };
    const event: DefaultChannelSetEvent = {
      type: 'defaultChannelSet',
      channelId: channel.channel_id,
      isDefault: cmd.is_default,
    };
    const after = {
      ...state,
      channels: { ...state.channels, [channel.channel_id]: { ...channel, is_default: cmd.is_default } },
    };
    const guests = Object.values(state.accounts)
      .filter(isGuest)
      .map((a) => a.id);
    // Guests are told there are no default channels (see the register), so they hear no change either.
    const notice = defaultStreamsEvent(defaultChannelIds(after));
    return { events: [event], fanouts: [toEveryone(state, [notice], guests)], reply: null };
  },
};

export function applyDefaultChannelSet(state: RealmState, event: DefaultChannelSetEvent): void {
  const channel = state.channels[event.channelId];
  if (channel) channel.is_default = event.isDefault;
}
