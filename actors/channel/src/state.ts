import type { ChannelInfo } from '@chat/protocol';

export interface ChannelState {
  exists: boolean;
  info: ChannelInfo;
}

export type ChannelEvent = { type: 'channelCreated'; info: ChannelInfo } | { type: 'subscribed'; userIds: number[] };

export function initialState(): ChannelState {
  return {
    exists: false,
    info: {
      channel_id: 0,
      name: '',
      description: '',
      invite_only: false,
      is_web_public: false,
      history_public_to_subscribers: true,
      creator_id: null,
      subscribers: [],
      date_created: 0,
    },
  };
}

export function applyEvent(state: ChannelState, event: ChannelEvent): void {
  switch (event.type) {
    case 'channelCreated':
      state.exists = true;
      state.info = { ...event.info, subscribers: [...new Set(event.info.subscribers)].sort((a, b) => a - b) };
      return;
    case 'subscribed': {
      const all = new Set([...state.info.subscribers, ...event.userIds]);
      state.info.subscribers = [...all].sort((a, b) => a - b);
      return;
    }
  }
}
