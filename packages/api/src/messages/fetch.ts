import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { anchorOf, namesIn, parseNarrow, resolveNarrow, resolveWith, scopeOf, type ResolvedTerm } from '@chat/narrow';
import {
  ChatError,
  channelAddress,
  conversationAddress,
  maySeePublicChannels,
  type FetchResult,
  type ViewedMessage,
  conversationOfKey,
} from '@chat/protocol';
import { CallerContext } from '../context.js';
import { LIMITS } from '../limits.js';
import { linkifiersOf } from './content.js';
import { messageJson, referencedUsers, type MessageFormat } from './json.js';
import type { ApiOptions } from '../options.js';
import { fakeEmailDomain } from '../email-domain.js';
import { accessibleUserIds, asAccessible } from '../users/access.js';

/** The original's LARGER_THAN_MAX_MESSAGE_ID: the anchor of "newest", and of "first_unread" with nothing unread. */
export const LATEST = 10_000_000_000_000_000;

const Format = {
  apply_markdown: Type.Optional(Type.Boolean({ default: true })),
  client_gravatar: Type.Optional(Type.Boolean({ default: true })),
  allow_empty_topic_name: Type.Optional(Type.Boolean({ default: false })),
};

async function formatOf(
  caller: CallerContext,
  params: { apply_markdown?: boolean; client_gravatar?: boolean; allow_empty_topic_name?: boolean },
  options: ApiOptions,
): Promise<MessageFormat> {
  const settings = await caller.settings();
  return {
    apply_markdown: params.apply_markdown ?? true,
    client_gravatar: params.client_gravatar ?? true,
    empty_topic_name: params.allow_empty_topic_name ? null : settings.empty_topic_display_name,
    realm: caller.principal.realm,
    edit_history: settings.message_edit_history_visibility_policy,
    fake_domain: fakeEmailDomain(options.externalUrl, options.fakeEmailDomain),
  };
}

export async function renderMessages(caller: CallerContext, messages: ViewedMessage[], format: MessageFormat) {
  const [known, linkifiers] = await Promise.all([caller.users(referencedUsers(messages)), linkifiersOf(caller)]);
  const users =
    format.fake_domain === undefined ? known : asAccessible(known, await accessibleUserIds(caller), format.fake_domain);
  return messages.map((m) => ({
    ...messageJson(m, users, linkifiers ? { ...format, linkifiers } : format),
    ...(m.match_content !== undefined ? { match_content: m.match_content, match_subject: m.match_subject } : {}),
  }));
}

/** Parses a narrow and resolves its names, e-mails and `with` to ids. */
export async function narrowTerms(caller: CallerContext, raw: unknown[]): Promise<ResolvedTerm[]> {
  const terms = parseNarrow(raw);
  const names = namesIn(terms);
  const resolved =
    names.emails.length + names.channelNames.length > 0
      ? await caller.resolve({ emails: names.emails, channel_names: names.channelNames })
      : { users: [], channels: [], groups: [] };
  let result = resolveNarrow(terms, {
    byEmail: new Map(resolved.users.map((u) => [u.email.toLowerCase(), u.user_id])),
    channelByName: new Map(resolved.channels.map((c) => [c.name.toLowerCase(), c.channel_id])),
  });
  const withTerm = result.find((t) => t.operator === 'with');
  if (withTerm) {
    // A message the caller cannot see resolves like a missing one.
    const [found] = await getMessages(caller, [withTerm.operand as number]).catch(() => []);
    result = resolveWith(result, found?.message ?? null);
  }
  return result;
}

/** The conversations a narrow can draw from, as actor keys. */
export async function conversationsOf(caller: CallerContext, terms: ResolvedTerm[]): Promise<string[]> {
  const { realm, user_id } = caller.principal;
  const scope = scopeOf(terms, user_id);
  if (scope.kind === 'channel') return [channelAddress(realm, scope.channelId).key];
  if (scope.kind === 'dm') return [conversationAddress(realm, scope.userIds).key];
  if (scope.kind === 'message')
    return scope.ids.length === 0 ? [] : [...new Set((await caller.locate(scope.ids)).values())];
  const state = await caller.state();
  const keys = new Set(Object.keys(state.subscriptions).map((id) => channelAddress(realm, Number(id)).key));
  if (terms.some((t) => t.operator === 'channels' && !t.negated) && maySeePublicChannels(caller.principal)) {
    const channels = await caller.actors.ask(caller.realm, { type: 'realm.channels' });
    for (const c of channels) if (!c.invite_only) keys.add(channelAddress(realm, c.channel_id).key);
  }
  // One recorded before its first message (a restricted guest's, by an earlier version) has none yet.
  for (const c of state.conversations) if (c.max_message_id > 0) keys.add(c.key);
  return [...keys];
}

export async function firstUnreadOf(caller: CallerContext, keys: string[]): Promise<number> {
  const found = await Promise.all(
    keys.map(async (key) =>
      caller.actors.ask(conversationOfKey(key), {
        type: 'message.firstUnread',
        viewer: await caller.viewer(key),
      }),
    ),
  );
  const ids = found.filter((id): id is number => id !== null);
  return ids.length > 0 ? Math.min(...ids) : LATEST;
}

export function anchorValue(raw: string | number | undefined): number | 'first_unread' {
  if (raw === undefined || raw === 'newest') return LATEST;
  if (raw === 'oldest') return 0;
  if (raw === 'first_unread') return 'first_unread';
  if (typeof raw === 'number' || /^\d+$/.test(raw)) return Number(raw);
  throw new ChatError('BAD_REQUEST', 'Invalid anchor');
}

/** Asks each conversation around the anchor and merges, keeping the nearest messages on each side. */
export async function fetchAround(
  caller: CallerContext,
  keys: string[],
  terms: ResolvedTerm[],
  anchor: number,
  numBefore: number,
  numAfter: number,
  includeAnchor: boolean,
  /** Filled with each conversation's newest message id as it was read. */
  newest?: Map<string, number>,
): Promise<FetchResult> {
  const results = await Promise.all(
    keys.map(async (key) =>
      caller.actors.ask(conversationOfKey(key), {
        type: 'message.fetch',
        viewer: await caller.viewer(key),
        narrow: terms,
        anchor,
        num_before: numBefore,
        num_after: numAfter,
        include_anchor: includeAnchor,
      }),
    ),
  );
  results.forEach((r, i) => newest?.set(keys[i]!, r.newest_id));
  const all = results.flatMap((r) => r.messages);
  const before = all.filter((m) => m.id < anchor).sort((a, b) => b.id - a.id);
  const after = all.filter((m) => m.id > anchor).sort((a, b) => a.id - b.id);
  const atAnchor = all.filter((m) => m.id === anchor);
  return {
    messages: [...before.slice(0, numBefore).reverse(), ...atAnchor, ...after.slice(0, numAfter)],
    found_oldest: results.every((r) => r.found_oldest) && before.length <= numBefore,
    found_newest: results.every((r) => r.found_newest) && after.length <= numAfter,
    found_anchor: results.some((r) => r.found_anchor),
    newest_id: Math.max(0, ...results.map((r) => r.newest_id)),
  };
}

/**
 * The caller's newest `limit` unread messages, everywhere, and how far each
 * conversation was read (for the register snapshot).
 */
export async function unreadMessages(caller: CallerContext, limit: number) {
  const terms: ResolvedTerm[] = [{ operator: 'is', operand: 'unread', negated: false }];
  const keys = await conversationsOf(caller, terms);
  const newest = new Map<string, number>();
  const { messages } = await fetchAround(caller, keys, terms, LATEST, limit, 0, true, newest);
  return { messages, newest };
}

export function fetchRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/messages',
      auth: 'required',
      params: Type.Object({
        anchor: Type.Optional(
          Type.Union([Type.Integer(), Type.String()], { description: 'newest, oldest, first_unread or a message id.' }),
        ),
        include_anchor: Type.Optional(Type.Boolean({ default: true })),
        num_before: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
        num_after: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
        narrow: Type.Optional(Type.Array(Type.Unknown(), { default: [] })),
        use_first_unread_anchor: Type.Optional(Type.Boolean({ default: false })),
        message_ids: Type.Optional(Type.Array(Type.Integer())),
        ...Format,
      }),
      summary: 'Get messages',
      description: 'Messages matching a narrow around an anchor, oldest first.',
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const format = await formatOf(caller, params, options);
        const terms = await narrowTerms(caller, params.narrow ?? []);
        if (params.message_ids) {
          const messages = (await getMessages(caller, params.message_ids)).map((m) => m.message);
          return { messages: await renderMessages(caller, messages, format), history_limited: false };
        }
        const numBefore = params.num_before ?? 0;
        const numAfter = params.num_after ?? 0;
        if (numBefore + numAfter > LIMITS.max_fetch) {
          throw new ChatError('BAD_REQUEST', `Too many messages requested (maximum ${LIMITS.max_fetch}).`);
        }
        const keys = await conversationsOf(caller, terms);
        let anchor = anchorValue(params.use_first_unread_anchor ? 'first_unread' : (params.anchor ?? anchorOf(terms)));
        if (anchor === 'first_unread') anchor = await firstUnreadOf(caller, keys);
        const result = await fetchAround(
          caller,
          keys,
          terms,
          anchor,
          numBefore,
          numAfter,
          params.include_anchor ?? true,
        );
        return {
          anchor,
          found_anchor: result.found_anchor,
          found_oldest: result.found_oldest,
          found_newest: result.found_newest,
          history_limited: false,
          messages: await renderMessages(caller, result.messages, format),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/messages/matches_narrow',
      auth: 'required',
      params: Type.Object({ msg_ids: Type.Array(Type.Integer()), narrow: Type.Array(Type.Unknown()) }),
      summary: 'Check if messages match a narrow',
      description: 'Which of the given messages match the narrow, with search matches highlighted.',
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const terms = await narrowTerms(caller, params.narrow);
        const keys = await caller.locate(params.msg_ids).catch(() => new Map<number, string>());
        const messages: Record<string, { match_content: string; match_subject: string }> = {};
        for (const [key, ids] of groupByKey(keys)) {
          const found = await actors
            .ask(conversationOfKey(key), {
              type: 'message.match',
              viewer: await caller.viewer(key),
              ids,
              narrow: terms,
            })
            .catch(() => ({}));
          Object.assign(messages, found);
        }
        return { messages };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/messages/{message_id}',
      auth: 'required',
      // No client_gravatar: the original always answers as if it were true (json_fetch_raw_message).
      params: Type.Object({
        message_id: Type.Integer(),
        apply_markdown: Format.apply_markdown,
        allow_empty_topic_name: Format.allow_empty_topic_name,
      }),
      summary: 'Fetch a single message',
      description: 'One message the caller may see.',
      tags: ['messages'],
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const [{ message }] = (await getMessages(caller, [params.message_id])) as [Located];
        const [json] = await renderMessages(caller, [message], await formatOf(caller, params, options));
        return { message: json, raw_content: message.content };
      },
    }),
  ];
}

export function groupByKey(keys: Map<number, string>): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const [id, key] of keys) groups.set(key, [...(groups.get(key) ?? []), id]);
  return groups;
}

/** A message with the key of the conversation that holds it. */
export interface Located {
  key: string;
  message: ViewedMessage;
}

/** The messages by id, oldest first, each checked against what the caller may see. */
export async function getMessages(caller: CallerContext, ids: number[]): Promise<Located[]> {
  const found: Located[] = [];
  for (const [key, group] of groupByKey(await caller.locate(ids))) {
    const viewer = await caller.viewer(key);
    const messages = await caller.actors.ask(conversationOfKey(key), {
      type: 'message.get',
      viewer,
      ids: group,
    });
    found.push(...messages.map((message) => ({ key, message })));
  }
  return found.sort((a, b) => a.message.id - b.message.id);
}
