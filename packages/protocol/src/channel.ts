/** The ChannelActor's contract. */
export interface NewChannel {
  channel_id: number;
  name: string;
  description: string;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  creator_id: number | null;
  subscribers: number[];
}

export interface ChannelInfo extends NewChannel {
  /** Epoch seconds. */
  date_created: number;
}

export type ChannelCommand =
  | { type: 'channel.create'; channel: NewChannel }
  | { type: 'channel.info' }
  | { type: 'channel.subscribe'; user_ids: number[] };
