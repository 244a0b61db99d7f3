import { ChatError } from '@chat/protocol';
import type { ExecutionContext } from 'ava';
import type { NarrowMessage, ResolvedTerm } from '../src/index.js';

/** The viewer in every test, and two other users. */
export const ME = 10;
export const ALICE = 11;
export const BOB = 12;
export const VERONA = 100;
export const DENMARK = 101;

/** A channel message from Alice in Verona, unless overridden. */
export function channelMessage(over: Partial<NarrowMessage> = {}): NarrowMessage {
  return {
    id: 1,
    sender_id: ALICE,
    channel_id: VERONA,
    channel_is_public: true,
    channel_is_web_public: false,
    topic: 'lunch plans',
    dm_user_ids: [],
    content: 'Shall we walk to the **new** place?',
    text: 'Shall we walk to the new place?',
    rendered: '<p>Shall we walk to the <strong>new</strong> place?</p>',
    flags: ['read'],
    has: { link: false, attachment: false, image: false, reaction: false },
    ...over,
  };
}

/** A direct message between the given participants (sender first), unless overridden. */
export function directMessage(participants: number[], over: Partial<NarrowMessage> = {}): NarrowMessage {
  return channelMessage({
    sender_id: participants[0],
    channel_id: null,
    channel_is_public: false,
    topic: '',
    dm_user_ids: [...new Set(participants)].sort((a, b) => a - b),
    ...over,
  });
}

export const term = <T extends ResolvedTerm>(t: Omit<T, 'negated'> & { negated?: boolean }): ResolvedTerm =>
  ({ negated: false, ...t }) as ResolvedTerm;

/** Asserts that `fn` throws a BAD_REQUEST ChatError with exactly `message`. */
export function throwsBadRequest(t: ExecutionContext, fn: () => unknown, message: string): ChatError | undefined {
  const err = t.throws(fn, { instanceOf: ChatError, message });
  t.is(err?.code, 'BAD_REQUEST');
  return err;
}
