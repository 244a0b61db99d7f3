/**
 * The events a queue holds that the edge reshapes for each client: built
 * here by their constructors and recognized by their guards, so the edge
 * reads them without casts. (Every other kind reaches clients as built.)
 */
import type { ChannelInfo } from '../channel.js';
import type { BotJson } from '../bots.js';
import type { QueueEvent } from '../queue.js';
import type { SubscriptionSettings } from '../user.js';

/** `subscription` op `add` as the UserActor raises it: the edge renders each entry as the reference's subscription. */
export type SubscriptionAddEvent = {
  type: 'subscription';
  op: 'add';
  added: Array<{ channel: ChannelInfo; settings: SubscriptionSettings }>;
};
export const subscriptionAddEvent = (channel: ChannelInfo, settings: SubscriptionSettings): SubscriptionAddEvent => ({
  type: 'subscription',
  op: 'add',
  added: [{ channel, settings }],
});
export const isSubscriptionAdd = (event: QueueEvent): event is SubscriptionAddEvent =>
  event.type === 'subscription' && event.op === 'add' && 'added' in event;

/** `stream` op `create`; the edge renders each channel in the reference's shape. */
export type StreamCreateEvent = { type: 'stream'; op: 'create'; channels: ChannelInfo[] };
export const streamCreateEvent = (channels: ChannelInfo[]): StreamCreateEvent => ({
  type: 'stream',
  op: 'create',
  channels,
});
export const isStreamCreate = (event: QueueEvent): event is StreamCreateEvent =>
  event.type === 'stream' && event.op === 'create' && 'channels' in event;

/** `realm_bot` op `add`; the edge adds the bot's avatar. */
export type BotAddEvent = { type: 'realm_bot'; op: 'add'; bot: BotJson };
export const botAddEvent = (bot: BotJson): BotAddEvent => ({ type: 'realm_bot', op: 'add', bot });
export const isBotAdd = (event: QueueEvent): event is BotAddEvent =>
  event.type === 'realm_bot' && event.op === 'add' && 'bot' in event;

/** `stream` op `delete`: the edge makes it for clients that do not know archived channels. */
export type StreamDeleteEvent = {
  type: 'stream';
  op: 'delete';
  streams: Array<{ stream_id: number }>;
  stream_ids: number[];
};
export const streamDeleteEvent = (stream_id: number): StreamDeleteEvent => ({
  type: 'stream',
  op: 'delete',
  streams: [{ stream_id }],
  stream_ids: [stream_id],
});
