import {
  ChatError,
  isRetriable,
  reminderRemoved,
  remindersAdded,
  scheduledAdded,
  scheduledRemoved,
  scheduledUpdated,
  type ReminderJson,
  type ScheduledMessageJson,
  userOfKey,
  userTopicEvent,
  realmOfKey,
  type QueueEvent,
  type UserRef,
  type StoredScheduled,
  type ScheduledProtocol,
} from '@chat/protocol';
import type { ActorClient, ActorContext, Decision } from '@chat/runtime';
import { policyOnSend } from '../auto-topics.js';
import { toOwnQueues } from '../queues.js';
import type { UserEvent, UserHandlers, UserState } from '../state.js';
import { emptyNumbered, keep, nextId, type Numbered } from './numbered.js';

/**
 * Scheduled messages and reminders, sent by this actor's timer when due.
 * While any waits, the actor stays in memory (`canPassivate`), so it is
 * listed in checkpoints and woken after a restart or a move to another
 * host, where `onActivate` arms the timer again from the state.
 */
export type ScheduledState = Numbered<StoredScheduled>;

export type ScheduledEvent =
  | { type: 'scheduledAdded'; item: StoredScheduled }
  | { type: 'scheduledRemoved'; id: number }
  | { type: 'scheduledFailed'; id: number };

type Ctx = ActorContext<UserState>;

export const TIMER = 'scheduled';
/** Timers sleep at most this long, then look again (setTimeout's range is about 24 days). */
const MAX_SLEEP_MS = 60 * 60 * 1000;

const EVENTS: Record<ScheduledEvent['type'], true> = {
  scheduledAdded: true,
  scheduledRemoved: true,
  scheduledFailed: true,
};

export const isScheduledEvent = (e: UserEvent): e is ScheduledEvent => Object.hasOwn(EVENTS, e.type);

const items = (state: Readonly<UserState>) => Object.values(state.scheduled?.byId ?? {});
const waiting = (state: Readonly<UserState>) => items(state).filter((i) => !i.failed);

/** Whether the actor must stay in memory for its timer. */
export const hasScheduled = (state: Readonly<UserState>) => waiting(state).length > 0;

const common = (item: StoredScheduled) => ({
  content: item.request.content,
  rendered_content: item.rendered_content,
  scheduled_delivery_timestamp: item.scheduled_delivery_timestamp,
  failed: item.failed,
});

/** The reference's `ScheduledMessage`. */
function messageJson(item: StoredScheduled): ScheduledMessageJson {
  const { request } = item;
  return {
    scheduled_message_id: item.id,
    type: request.type,
    to: request.to,
    ...(request.type === 'stream' ? { topic: request.topic ?? '' } : {}),
    ...common(item),
  };
}

/** The reference's `Reminder`. */
function reminderJson(item: StoredScheduled, userId: number): ReminderJson {
  return {
    reminder_id: item.id,
    type: 'private',
    to: [userId],
    reminder_target_message_id: item.target_message_id,
    ...common(item),
  };
}

/** Oldest delivery first, as the original lists them. */
export function listScheduled(state: Readonly<UserState>, kind: 'message' | 'reminder', userId: number) {
  return items(state)
    .filter((i) => i.kind === kind)
    .sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.id - b.id)
    .map((i) => (kind === 'message' ? messageJson(i) : reminderJson(i, userId)));
}

const added = (item: StoredScheduled, userId: number): QueueEvent =>
  item.kind === 'message' ? scheduledAdded([messageJson(item)]) : remindersAdded([reminderJson(item, userId)]);

const removed = (item: StoredScheduled): QueueEvent =>
  item.kind === 'message' ? scheduledRemoved(item.id) : reminderRemoved(item.id);

const updated = (item: StoredScheduled): QueueEvent => scheduledUpdated(messageJson(item));

export function applyScheduledEvent(state: UserState, event: ScheduledEvent): void {
  const scheduled = (state.scheduled ??= emptyNumbered());
  switch (event.type) {
    case 'scheduledAdded':
      keep(scheduled, event.item);
      return;
    case 'scheduledRemoved':
      delete scheduled.byId[event.id];
      return;
    case 'scheduledFailed': {
      const item = scheduled.byId[event.id];
      if (item) item.failed = true;
      return;
    }
  }
}

/** Sets the timer for the next delivery, no later than `also` (ms) when given. */
export function arm(ctx: Ctx, also?: number): void {
  const due = [...waiting(ctx.state).map((i) => i.scheduled_delivery_timestamp * 1000), ...(also ? [also] : [])];
  if (due.length === 0) return;
  const delay = Math.max(0, Math.min(...due) - ctx.now);
  ctx.timers.set(TIMER, Math.min(delay, MAX_SLEEP_MS));
}

function find(state: Readonly<UserState>, kind: 'message' | 'reminder', id: number): StoredScheduled {
  const item = state.scheduled?.byId[id];
  if (!item || item.kind !== kind) {
    const what = kind === 'message' ? 'Scheduled message' : 'Reminder';
    throw new ChatError('RESOURCE_NOT_FOUND', `${what} does not exist`);
  }
  return item;
}

const ownQueues = (ctx: Ctx, event: QueueEvent) => toOwnQueues(ctx.address.key, ctx.state, [event]);
const me = (ctx: Ctx) => userOfKey(ctx.address.key);

export const scheduledHandlers: UserHandlers<ScheduledProtocol> = {
  'user.scheduled': (ctx, { kind }) => ({ reply: listScheduled(ctx.state, kind, me(ctx)) }),
  'user.scheduledItem': ({ state }, { kind, id }) => ({ reply: find(state, kind, id) }),
  'user.schedule': (ctx, command) => {
    const item: StoredScheduled = { ...command.item, id: nextId(ctx.state.scheduled), failed: false };
    arm(ctx, item.scheduled_delivery_timestamp * 1000);
    return {
      events: [{ type: 'scheduledAdded', item }],
      tells: ownQueues(ctx, added(item, me(ctx))),
      reply: { id: item.id },
    };
  },
  'user.editScheduled': (ctx, command) => {
    find(ctx.state, command.item.kind, command.id);
    const item: StoredScheduled = { ...command.item, id: command.id, failed: false };
    arm(ctx, item.scheduled_delivery_timestamp * 1000);
    return { events: [{ type: 'scheduledAdded', item }], tells: ownQueues(ctx, updated(item)), reply: null };
  },
  'user.unschedule': (ctx, { kind, id }) => {
    const item = find(ctx.state, kind, id);
    return { events: [{ type: 'scheduledRemoved', id: item.id }], tells: ownQueues(ctx, removed(item)), reply: null };
  },
};

/**
 * What a direct send carries for the restricted guests among its people
 * (their adds, `access` of `message.send`), given by the server (the edge's
 * `directAccessAdds`). It asks only the realm: no UserActor is asked from
 * this actor's timer, since one may be waiting on this actor from its own
 * (two guests' messages to each other, due together).
 */
export type DirectAccess = (
  actors: ActorClient,
  realm: string,
  people: UserRef[],
  sender: number,
) => Promise<Send['access']>;

type Send = StoredScheduled['send']['command'];

/**
 * Sends what is due, each under an idempotency key of its own, so that a
 * send repeated after a crash (the conversation answered, this actor had
 * not yet recorded it) is the same message. A refused send stays, marked
 * failed, for its author to edit or delete.
 */
export async function sendDue(ctx: Ctx, directAccess?: DirectAccess): Promise<Decision<UserEvent>> {
  const state = ctx.state;
  const events: UserEvent[] = [];
  const queueEvents: QueueEvent[] = [];
  const done = new Set<number>();
  const policied = new Set<string>();
  for (const item of waiting(state).filter((i) => i.scheduled_delivery_timestamp * 1000 <= ctx.now)) {
    const key = `scheduled:${ctx.address.key}:${item.id}:${item.scheduled_delivery_timestamp}`;
    try {
      let command = item.send.command;
      if (directAccess && item.kind === 'message' && item.request.type !== 'stream') {
        // Asked again on every try: the conversation keeps only the try it decided (the key).
        const access = await directAccess(
          ctx.actors,
          realmOfKey(ctx.address.key),
          command.people,
          command.sender.user_id,
        );
        if (access) command = { ...command, access };
      }
      const sent = await ctx.actors.ask({ type: 'channel', key: item.send.key }, command, { idempotencyKey: key });
      done.add(item.id);
      events.push({ type: 'scheduledRemoved', id: item.id });
      queueEvents.push(removed(item));
      // A scheduled message of one's own that should stay unread, as POST /messages does it.
      if (item.kind === 'message' && item.send.command.read_by_sender === false) {
        const target = { id: sent.id, key: item.send.key, own: true };
        events.push({ type: 'flagsChanged', op: 'remove', flag: 'read', targets: [target] });
      }
      // Sent now, it follows or unmutes its topic as any message the user sends (once a round per topic).
      const { request } = item;
      const topic = item.send.command.topic;
      if (item.kind === 'message' && request.type === 'stream' && !item.send.command.sender.is_bot) {
        const channelId = request.to as number;
        const policy = policyOnSend(state, channelId, topic, sent.new_topic);
        if (policy !== undefined && !policied.has(`${channelId}/${topic.toLowerCase()}`)) {
          policied.add(`${channelId}/${topic.toLowerCase()}`);
          const at = Math.floor(ctx.now / 1000);
          events.push({ type: 'topicPolicySet', channelId, topic, policy, at });
          queueEvents.push(userTopicEvent(channelId, topic, policy, at));
        }
      }
    } catch (error) {
      // Busy or slow: the next round tries again.
      if (!(error instanceof ChatError) || isRetriable(error)) continue;
      done.add(item.id);
      events.push({ type: 'scheduledFailed', id: item.id });
      if (item.kind === 'message') queueEvents.push(updated({ ...item, failed: true }));
    }
  }
  const pending = waiting(state).filter((i) => !done.has(i.id));
  if (pending.length > 0) {
    const next = Math.min(...pending.map((i) => Math.max(i.scheduled_delivery_timestamp * 1000, ctx.now + 1000)));
    ctx.timers.set(TIMER, Math.min(next - ctx.now, MAX_SLEEP_MS));
  }
  return { events, tells: queueEvents.length > 0 ? toOwnQueues(ctx.address.key, state, queueEvents) : [] };
}
