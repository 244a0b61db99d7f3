import type { ChatClient } from '@chat/testkit';
import { call, ok, type Body } from './replies.js';

/** Helpers of the move-between-channels tests: every call checked against the reference. */
export type Message = Body & { id: number; flags: string[]; content: string; stream_id: number; subject: string };

export const send = async (client: ChatClient, channel: string | number, topic: string, content: string) =>
  (await ok(client, 'POST', '/messages', { type: 'stream', to: channel, topic, content })).id as number;

/** A channel of the test's own, created by `creator` (an administrator) with these subscribers. */
export async function channel(creator: ChatClient, name: string, subscribers: number[], more: Body = {}) {
  const params = { name, subscribers: JSON.stringify(subscribers), ...more };
  return (await ok(creator, 'POST', '/channels/create', params)).id as number;
}

/** Messages of a narrow, oldest first, as raw Markdown so notices can be compared as text. */
export async function messagesIn(client: ChatClient, narrow: unknown[]): Promise<Message[]> {
  const params = {
    anchor: 'newest',
    num_before: 100,
    num_after: 0,
    narrow: JSON.stringify(narrow),
    apply_markdown: false,
  };
  return (await ok(client, 'GET', '/messages', params)).messages as Message[];
}

/** A narrow to one channel (by id), or to one of its topics. */
export const channelOf = (channelId: number) => [{ operator: 'channel', operand: channelId }];
export const topicOf = (channelId: number, topic: string) => [
  ...channelOf(channelId),
  { operator: 'topic', operand: topic },
];

/** The move request: PATCH /messages/{id} with stream_id. */
export const move = (client: ChatClient, id: number, params: Body) => call(client, 'PATCH', `/messages/${id}`, params);
