import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import type { ResolvedTerm } from '@chat/narrow';
import {
  ChatError,
  channelAddress,
  conversationAddress,
  conversationOfKey,
  type MessageDetail,
  type ViewedMessage,
} from '@chat/protocol';
import { CallerContext } from '../context.js';
import { normalizeTopic } from '../limits.js';
import {
  anchorValue,
  conversationsOf,
  fetchAround,
  firstUnreadOf,
  getMessages,
  LATEST,
  narrowTerms,
  type Located,
} from './fetch.js';

const EDITABLE_FLAGS = ['read', 'starred'] as const;
type Flag = (typeof EDITABLE_FLAGS)[number];
const FIXED_FLAGS = [
  'mentioned',
  'wildcard_mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'has_alert_word',
  'historical',
  'collapsed',
];

/** The original's bound on one update by narrow: before and after the anchor together. */
const MAX_PER_UPDATE = 5000;
/** How many unread messages one step of marking a conversation read takes, newest first. */
const MARK_BATCH = 1000;
/** How long `POST /mark_all_as_read` works before answering `complete: false` (the client asks again). */
const MARK_ALL_BUDGET_MS = 10_000;

const Op = Type.Union([Type.Literal('add'), Type.Literal('remove')]);
const UNREAD: ResolvedTerm = { operator: 'is', operand: 'unread', negated: false };

function editableFlag(name: string): Flag {
  if (FIXED_FLAGS.includes(name)) throw new ChatError('BAD_REQUEST', `Flag not editable: '${name}'`);
  const flag = EDITABLE_FLAGS.find((f) => f === name);
  if (!flag) throw new ChatError('BAD_REQUEST', `Invalid flag: '${name}'`);
  return flag;
}

/** The conversation actor's key of a message, from where it is now. */
function located(realm: string, message: ViewedMessage): Located {
  const address =
    message.channel_id !== null
      ? channelAddress(realm, message.channel_id)
      : conversationAddress(realm, message.dm_user_ids);
  return { key: address.key, message };
}

/** What an unread event tells clients about each message, so they can count it unread. */
function detailsOf(messages: ViewedMessage[], me: number): Record<string, MessageDetail> {
  const mentions = ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned'];
  return Object.fromEntries(
    messages.map((m) => {
      const mentioned = m.flags.some((f) => mentions.includes(f)) ? { mentioned: true } : {};
      const where: MessageDetail =
        m.channel_id !== null
          ? { type: 'stream', stream_id: m.channel_id, topic: m.topic }
          : { type: 'private', user_ids: m.dm_user_ids.filter((id) => id !== me) };
      return [m.id, { ...where, ...mentioned }];
    }),
  );
}

/** Adds or removes a personal flag on messages the caller sees; the ids whose flag changed. */
export async function setFlag(
  caller: CallerContext,
  op: 'add' | 'remove',
  flag: Flag,
  messages: Located[],
): Promise<number[]> {
  if (messages.length === 0) return [];
  const me = caller.principal.user_id;
  const unread = op === 'remove' && flag === 'read';
  // Unread messages live only in subscribed channels: the original leaves the others as they are.
  if (unread) messages = await inSubscribed(caller, messages);
  if (messages.length === 0) return [];
  const targets = messages.map(({ key, message }) => ({ id: message.id, key, own: message.sender_id === me }));
  const historical = op === (flag === 'starred' ? 'add' : 'remove') ? await historicalRows(caller, messages) : [];
  const details = unread
    ? {
        details: detailsOf(
          messages.map((m) => m.message),
          me,
        ),
      }
    : {};
  const result = await caller.actors.ask(caller.me, {
    type: 'user.flags',
    op,
    flag,
    messages: targets,
    ...details,
    ...(historical.length > 0 ? { historical } : {}),
  });
  return result.messages;
}

async function inSubscribed(caller: CallerContext, messages: Located[]): Promise<Located[]> {
  if (!messages.some((m) => m.message.channel_id !== null)) return messages;
  const subscribed = (await caller.state()).subscriptions;
  return messages.filter((m) => m.message.channel_id === null || m.message.channel_id in subscribed);
}

/**
 * Starring or marking unread a channel message one does not have (the
 * `historical` flag says so) gives a historical row, as in the original:
 * the channel learns it, so what happens to the message reaches them.
 */
async function historicalRows(caller: CallerContext, messages: Located[]): Promise<number[]> {
  const byKey = new Map<string, number[]>();
  for (const { key, message } of messages) {
    if (message.channel_id === null || !message.flags.includes('historical')) continue;
    byKey.set(key, [...(byKey.get(key) ?? []), message.id]);
  }
  const asked = [...byKey].map(([key, ids]) =>
    caller.actors.ask(conversationOfKey(key), {
      type: 'message.historical',
      actor: caller.principal,
      message_ids: ids,
    }),
  );
  return (await Promise.all(asked)).flat();
}

/**
 * Marks the caller's unread messages matching `terms` read, newest first,
 * a batch at a time, as the original does; false if time ran out first.
 */
export async function markRead(caller: CallerContext, terms: ResolvedTerm[], budgetMs = Infinity): Promise<boolean> {
  const unread = [...terms, UNREAD];
  const keys = await conversationsOf(caller, unread);
  const until = Date.now() + budgetMs;
  let anchor = LATEST;
  for (;;) {
    const found = await fetchAround(caller, keys, unread, anchor, MARK_BATCH, 0, anchor === LATEST);
    const batch = found.messages.map((m) => located(caller.principal.realm, m));
    await setFlag(caller, 'add', 'read', batch);
    if (found.found_oldest || batch.length === 0) return true;
    if (Date.now() > until) return false;
    anchor = batch[0]!.message.id;
  }
}

/** The channel as the caller may read it, else the original's "Invalid channel ID". */
async function readableChannel(caller: CallerContext, channelId: number): Promise<ResolvedTerm> {
  await caller.channelInfo(channelId);
  return { operator: 'channel', operand: channelId, negated: false };
}

export function flagRoutes(): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/messages/flags',
      auth: 'required',
      params: Type.Object({
        messages: Type.Array(Type.Integer()),
        op: Op,
        flag: Type.String(),
      }),
      summary: 'Update personal message flags',
      description: 'Marks messages read or unread, starred or unstarred, for the caller.',
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const flag = editableFlag(params.flag);
        const caller = new CallerContext(actors, principal);
        const changed = await setFlag(caller, params.op, flag, await getMessages(caller, params.messages));
        return { messages: changed };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/messages/flags/narrow',
      auth: 'required',
      params: Type.Object({
        anchor: Type.Union([Type.Integer(), Type.String()], {
          description: 'newest, oldest, first_unread or a message id.',
        }),
        include_anchor: Type.Optional(Type.Boolean({ default: true })),
        num_before: Type.Integer({ minimum: 0 }),
        num_after: Type.Integer({ minimum: 0 }),
        narrow: Type.Array(Type.Unknown()),
        op: Op,
        flag: Type.String(),
      }),
      summary: 'Update personal message flags for narrow',
      description: 'Adds or removes a personal flag on the messages of a narrow around an anchor.',
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const includeAnchor = params.include_anchor ?? true;
        if (params.num_before > 0 && params.num_after > 0 && !includeAnchor) {
          throw new ChatError('BAD_REQUEST', 'The anchor can only be excluded at an end of the range');
        }
        const flag = editableFlag(params.flag);
        const caller = new CallerContext(actors, principal);
        // Clamped as the original clamps, so that one update stays bounded.
        const numBefore = Math.min(
          params.num_before,
          Math.max(MAX_PER_UPDATE - params.num_after, Math.floor(MAX_PER_UPDATE / 2)),
        );
        const numAfter = Math.min(params.num_after, MAX_PER_UPDATE - numBefore);
        const terms = await narrowTerms(caller, params.narrow);
        const keys = await conversationsOf(caller, terms);
        let anchor = anchorValue(params.anchor);
        if (anchor === 'first_unread') anchor = await firstUnreadOf(caller, keys);
        const found = await fetchAround(caller, keys, terms, anchor, numBefore, numAfter, includeAnchor);
        const messages = found.messages.map((m) => located(principal.realm, m));
        // Unread messages live only in subscribed channels: others are left as they are, and named.
        const unread = params.op === 'remove' && flag === 'read';
        const subscribed = unread ? (await caller.state()).subscriptions : {};
        const skipped = (m: ViewedMessage) => unread && m.channel_id !== null && !(m.channel_id in subscribed);
        const ignored = [...new Set(found.messages.filter(skipped).map((m) => m.channel_id!))].sort((a, b) => a - b);
        const changed = await setFlag(
          caller,
          params.op,
          flag,
          messages.filter((m) => !skipped(m.message)),
        );
        return {
          ...(unread ? { ignored_because_not_subscribed_channels: ignored } : {}),
          processed_count: messages.length,
          updated_count: changed.length,
          first_processed_id: messages[0]?.message.id ?? null,
          last_processed_id: messages.at(-1)?.message.id ?? null,
          found_oldest: found.found_oldest,
          found_newest: found.found_newest,
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/mark_all_as_read',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Mark all messages as read',
      description: 'Marks every unread message of the caller read, newest first; `complete` false means ask again.',
      tags: ['messages'],
      async handler({ principal, actors }) {
        const caller = new CallerContext(actors, principal);
        return { complete: await markRead(caller, [], MARK_ALL_BUDGET_MS) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/mark_stream_as_read',
      auth: 'required',
      params: Type.Object({ stream_id: Type.Integer() }),
      summary: 'Mark messages in a channel as read',
      description: 'Marks every unread message of a channel read.',
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        await markRead(caller, [await readableChannel(caller, params.stream_id)]);
        return {};
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/mark_topic_as_read',
      auth: 'required',
      params: Type.Object({ stream_id: Type.Integer(), topic_name: Type.String() }),
      summary: 'Mark messages in a topic as read',
      description: 'Marks every unread message of a topic read.',
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const channel = await readableChannel(caller, params.stream_id);
        const name = normalizeTopic(params.topic_name, await caller.settings());
        const topic: ResolvedTerm = { operator: 'topic', operand: name, negated: false };
        if (name !== '') {
          const keys = await conversationsOf(caller, [channel]);
          const any = await fetchAround(caller, keys, [channel, topic], LATEST, 1, 0, true);
          if (any.messages.length === 0) throw new ChatError('BAD_REQUEST', `No such topic '${params.topic_name}'`);
        }
        await markRead(caller, [channel, topic]);
        return {};
      },
    }),
  ];
}
