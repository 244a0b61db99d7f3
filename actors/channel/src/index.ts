export { channelBehavior } from './behavior.js';
export type { ChannelEvent, ChannelState } from './state.js';
