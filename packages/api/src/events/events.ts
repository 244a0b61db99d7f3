import { Type } from '@sinclair/typebox';
import { defineRoute, RawJson, type Route } from '@chat/edge';
import {
  ChatError,
  isBotAdd,
  isGuest,
  isMessageEvent,
  isPresence,
  isRealmUserAdd,
  isUserGroup,
  isStreamCreate,
  isSubscriptionAdd,
  queueAddress,
  type NumberedEvent,
  type QueueSpec,
  type SubscriptionSettings,
  type UserSettings,
  type UserRef,
  streamDeleteEvent,
} from '@chat/protocol';
import { channelJson, subscriptionJson } from '../channels/json.js';
import { globalValue, isNotificationProperty, withGlobalDefaults } from '../channels/notification-defaults.js';
import { CallerContext } from '../context.js';
import { presentGroupEvent } from '../groups/event-json.js';
import { presentPresence } from '../users/presence.js';
import { presentNewUser } from '../users/event-json.js';
import { presentBotEvent } from '../bots/json.js';
import { messageJson } from '../messages/json.js';
import { linkifiersOf } from '../messages/content.js';
import type { ApiOptions } from '../options.js';
import { checkedQueueId } from './queue-id.js';
import { guestView } from './guest-view.js';
import { fakeEmailDomain } from '../email-domain.js';
import { pollQueue, QueueSpecs } from './poll.js';
import { MessageTexts } from './message-text.js';

type Body = Record<string, unknown>;

/** Topic fields of plain events that clients without `empty_topic_name` see as the display name. */
const TOPIC_FIELDS: Record<string, string[]> = {
  delete_message: ['topic'],
  update_message: ['orig_subject', 'subject'],
  user_topic: ['topic_name'],
  typing: ['topic'],
};

/** A plain event as this client sees it: zero, one or several events (same id). */
function presentPlain(
  event: NumberedEvent,
  spec: QueueSpec,
  emptyTopicName: string | null,
  global: UserSettings | null,
): Body[] {
  if (isUserGroup(event)) return presentGroupEvent(event, spec);
  if (isPresence(event)) return [presentPresence(event, spec)];
  if (isRealmUserAdd(event)) return [presentNewUser(event, spec)];
  if (isBotAdd(event)) return [presentBotEvent(event)];
  let shaped: Body = { ...event };
  for (const field of TOPIC_FIELDS[event.type] ?? []) {
    if (emptyTopicName !== null && shaped[field] === '') shaped[field] = emptyTopicName;
  }
  if (isSubscriptionAdd(event)) {
    const { added, ...rest } = event;
    const settings = (s: SubscriptionSettings) => (global ? withGlobalDefaults(s, global) : s);
    shaped = { ...rest, subscriptions: added.map((a) => subscriptionJson(a.channel, settings(a.settings), true)) };
  }
  if (global && event.type === 'subscription' && event.op === 'update' && isNotificationProperty(event.property)) {
    shaped.value ??= globalValue(event.property, global);
  }
  if (isStreamCreate(event)) {
    const { channels, ...rest } = event;
    shaped = { ...rest, streams: channels.map((c) => channelJson(c)) };
  }
  // Archiving shows as a property change only to clients that know archived channels; to others the channel is gone.
  const archiving = event.type === 'stream' && event.op === 'update' && event.property === 'is_archived';
  if (archiving && !spec.capabilities.archived_channels) {
    if (event.value !== true) return [];
    const streamId = event.stream_id as number;
    return [{ id: event.id, ...streamDeleteEvent(streamId) }];
  }
  if (event.type === 'delete_message' && !spec.capabilities.bulk_message_deletion) {
    const { message_ids: ids, ...rest } = shaped;
    return (ids as number[]).map((id) => ({ ...rest, message_id: id }));
  }
  return [shaped];
}

/** Whether an event names a channel's empty topic (clients without `empty_topic_name` see a display name). */
function namesEmptyTopic(event: NumberedEvent): boolean {
  if (isMessageEvent(event)) return event.message.channel_id !== null && event.message.topic === '';
  const fields: Body = event;
  return (TOPIC_FIELDS[event.type] ?? []).some((field) => fields[field] === '');
}

/** Events as one client asked to see them: messages rendered with the queue's format. */
export async function present(
  caller: CallerContext,
  events: NumberedEvent[],
  spec: QueueSpec,
  fakeDomain: string,
  texts: MessageTexts,
) {
  // Only an event naming the empty topic needs the realm's display name: asking the realm on every
  // poll would pile thousands of asks onto its one mailbox when a message reaches everyone.
  const needsTopicName = !spec.capabilities.empty_topic_name && events.some(namesEmptyTopic);
  const emptyTopicName = needsTopicName ? (await caller.settings()).empty_topic_display_name : null;
  const needsGlobal = !spec.capabilities.notification_settings_null && events.some((e) => e.type === 'subscription');
  const global = needsGlobal ? await caller.actors.ask(caller.me, { type: 'user.settings' }) : null;
  const messages = events.filter((e) => isMessageEvent(e));
  const linkifiers = messages.length > 0 ? await linkifiersOf(caller) : undefined;
  const guest = await guestView(caller, events, spec, fakeDomain);
  return events.flatMap((event): Array<Body | RawJson> => {
    const instead = guest.instead(event);
    if (instead) return instead;
    if (!isMessageEvent(event)) return presentPlain(event, spec, emptyTopicName, global);
    // The message without its flags is the same for every recipient with this format (a guest's may not be).
    const key = !isGuest(caller.principal)
      ? [
          event.message.id,
          event.message.timestamp,
          spec.apply_markdown,
          spec.client_gravatar,
          emptyTopicName,
          caller.principal.linkifiers_version,
        ].join('|')
      : undefined;
    const message = texts.text(caller.principal.realm, key, () => {
      const users = new Map<number, UserRef>(event.people.map((u) => [u.user_id, guest.people.get(u.user_id) ?? u]));
      const format = {
        apply_markdown: spec.apply_markdown,
        client_gravatar: spec.client_gravatar,
        empty_topic_name: emptyTopicName,
        realm: caller.principal.realm,
        ...(linkifiers ? { linkifiers } : {}),
      };
      const { flags: _flags, ...shown } = messageJson(event.message, users, format);
      return shown;
    });
    // As JSON.stringify writes { id, type, message, flags, local_message_id }.
    const flags = event.message.flags === undefined ? '' : `,"flags":${JSON.stringify(event.message.flags)}`;
    // What the original's clients read to replace their local echo.
    const local = event.local ? `,"local_message_id":${JSON.stringify(event.local.local_id)}` : '';
    return [new RawJson(`{"id":${event.id},"type":"message","message":${message}${flags}${local}}`)];
  });
}

/** A list of events as JSON text (the body is written around it), those already written as they are. */
const eventsJson = (events: Array<Body | RawJson>): unknown[] =>
  new RawJson(`[${events.map((e) => (e instanceof RawJson ? e.json : JSON.stringify(e))).join(',')}]`) as never;

export function eventRoutes(options: ApiOptions): Route[] {
  const specs = new QueueSpecs();
  const texts = new MessageTexts();
  // Read once: the options do not change, and a URL parsed on every poll was 1.3% of the edge worker's time in fanout.
  const fakeDomain = fakeEmailDomain(options.externalUrl, options.fakeEmailDomain);
  return [
    defineRoute({
      method: 'GET',
      path: '/events',
      auth: 'required',
      params: Type.Object({
        queue_id: Type.String({ description: 'The queue to read, from `POST /register`.' }),
        last_event_id: Type.Optional(Type.Integer({ description: 'The newest event the client has handled.' })),
        dont_block: Type.Optional(Type.Boolean({ description: 'Answer at once, even with no events.' })),
      }),
      summary: 'Get events from an event queue',
      description: 'Long-polls a queue: answers as soon as it has events, or with a heartbeat.',
      tags: ['real_time_events'],
      response: Type.Object({ events: Type.Array(Type.Unknown()), queue_id: Type.String() }),
      // Every delivered event costs one of these: served without Koa (edge/lean.ts).
      lean: true,
      // Promises, not an async function: a waiting poll keeps no suspended frame alive, and the caller's
      // context is made once the queue has answered.
      handler({ params, principal, actors, closed }) {
        const queueId = checkedQueueId(params.queue_id);
        const key = `${principal.realm}/${queueId}`;
        const known = specs.get(key);
        const get = {
          type: 'queue.get' as const,
          user_id: principal.user_id,
          last_event_id: params.last_event_id ?? null,
          dont_block: params.dont_block ?? false,
          since: Date.now(),
          ...(known && { has_spec: true }),
        };
        return pollQueue(actors, options, queueAddress(principal.realm, queueId), get, closed).then(
          async (got) => {
            if (got.spec) specs.set(key, got.spec);
            const spec = got.spec ?? known!; // a queue leaves its spec out only when the poll said it has it
            const caller = new CallerContext(actors, principal);
            return {
              events: eventsJson(await present(caller, got.events, spec, fakeDomain, texts)),
              queue_id: params.queue_id,
            };
          },
          (err: unknown) => {
            if (err instanceof ChatError && err.code === 'BAD_EVENT_QUEUE_ID') specs.delete(key);
            throw err;
          },
        );
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/events',
      auth: 'required',
      params: Type.Object({ queue_id: Type.String({ description: 'The queue to delete.' }) }),
      summary: 'Delete an event queue',
      description: 'Deletes a queue at once, rather than letting it expire.',
      tags: ['real_time_events'],
      response: Type.Object({}),
      async handler({ params, principal, actors }) {
        const queueId = checkedQueueId(params.queue_id);
        await actors.ask(queueAddress(principal.realm, queueId), { type: 'queue.delete', user_id: principal.user_id });
        specs.delete(`${principal.realm}/${queueId}`);
        return {};
      },
    }),
  ];
}
