import type { ProtocolOf } from './contract.js';

/**
 * The realm's default channels (new users join them): administrators add
 * and remove them; `realm.defaultChannels` lists their ids.
 */
export type DefaultChannelCommand =
  | { type: 'realm.defaultChannels' }
  | { type: 'realm.setDefaultChannel'; actor_id: number; channel_id: number; is_default: boolean };

export type DefaultChannelReplies = {
  'realm.defaultChannels': number[];
  'realm.setDefaultChannel': null;
};

export type DefaultChannelProtocol = ProtocolOf<DefaultChannelCommand, DefaultChannelReplies>;
