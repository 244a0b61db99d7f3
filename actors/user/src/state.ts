import {
  addRange,
  newSubscription,
  removeId,
  type ConversationRef,
  type FlagTarget,
  type IdRanges,
} from '@chat/protocol';
import type { E2eePushDevice, SubscriptionProperty, SubscriptionSettings, UserTopic } from '@chat/protocol';
import type { Handlers } from '@chat/runtime';
import { applyAttachmentEvent, type AttachmentEvent, type StoredAttachment } from './attachments.js';
import { applyPublicQueues } from './all-public.js';
import type { DraftsState } from './personal/drafts.js';
import { applyPersonalEvent, isPersonalEvent, type PersonalEvent } from './personal/personal.js';
import type { PushState } from './personal/push.js';
import type { SnippetsState } from './personal/snippets.js';
import type { ViewsState } from './personal/views.js';
import { applySettingsEvent, isSettingsEvent, type SettingsEvent, type StoredSettings } from './settings.js';
import { applyMutingEvent, isMutingEvent, type MutingEvent } from './muting.js';
import {
  applyScheduledEvent,
  isScheduledEvent,
  type ScheduledEvent,
  type ScheduledState,
} from './personal/scheduled.js';

export interface UserState {
  /** Personal settings of each subscribed channel, by channel id. */
  subscriptions: Record<string, SubscriptionSettings>;
  unsubscribed: number[];
  conversations: Record<string, ConversationRef>;
  /** Read message ids per conversation key. */
  read: Record<string, IdRanges>;
  /**
   * Channel message ids the user never received: those sent before they
   * subscribed, which `read` counts as read so they are not unread. A read
   * receipt needs the message received (the original's UserMessage row);
   * starring one, or marking it unread, receives it (the original's
   * historical row; marking read makes none). Messages moved in from a
   * channel the user was not in are not received either.
   */
  notReceived?: Record<string, IdRanges>;
  starred: number[];
  /** Own messages that are unread (sent with read_by_sender false, or marked unread). */
  unreadOwn: number[];
  /** By `channel_id/lower-cased topic`. */
  topics: Record<string, UserTopic>;
  followPolicy: number;
  unmutePolicy: number;
  /** Ids of the user's live event queues (absent in snapshots older than queues). */
  queues?: string[];
  /** Those of them registered with `all_public_streams`, and how often that set became (non-)empty: see all-public.ts. */
  publicQueues?: string[];
  publicSeq?: number;
  /** The user's uploads by path (absent in snapshots older than uploads). */
  attachments?: Record<string, StoredAttachment>;
  lastAttachmentId?: number;
  /** The user's own data (absent in snapshots older than each feature): see personal/personal.ts. */
  drafts?: DraftsState;
  snippets?: SnippetsState;
  navigationViews?: ViewsState;
  pushDevices?: PushState;
  /** E2EE push registrations by push account id (personal/push.ts). */
  e2eePushDevices?: Record<number, E2eePushDevice>;
  /** A bot's `/bot_storage`: see personal/bot-storage.ts. */
  botStorage?: Record<string, string>;
  /** Personal settings the user changed (absent in snapshots older than settings): see settings.ts. */
  settings?: StoredSettings;
  /** Muted users (id -> when, seconds), alert words, and messages that came with one (see muting.ts). */
  mutedUsers?: Record<string, number>;
  alertWords?: string[];
  alerted?: number[];
  /** Scheduled messages and reminders waiting to be sent (see scheduled.ts). */
  scheduled?: ScheduledState;
}

export type UserEvent =
  | { type: 'subscribed'; channelKey: string; channelId: number; color: string; lastMessageId: number }
  | { type: 'unsubscribed'; channelId: number }
  | { type: 'conversationSeen'; key: string; userIds: number[]; messageId: number }
  | { type: 'flagsChanged'; op: 'add' | 'remove'; flag: 'read' | 'starred'; targets: FlagTarget[] }
  | { type: 'notReceived'; key: string; ids: number[] }
  | { type: 'topicPolicySet'; channelId: number; topic: string; policy: number; at: number }
  | { type: 'subscriptionChanged'; channelId: number; property: SubscriptionProperty; value: unknown }
  | { type: 'queueAdded'; queueId: string; allPublic?: boolean }
  | { type: 'queueRemoved'; queueId: string }
  | AttachmentEvent
  | PersonalEvent
  | SettingsEvent
  | MutingEvent
  | ScheduledEvent;

/** The original's defaults: follow topics you start, unmute topics you send to in muted channels. */
export const FOLLOW_ON_START = 3;
export const UNMUTE_ON_SEND = 2;

export function initialState(): UserState {
  return {
    subscriptions: {},
    unsubscribed: [],
    conversations: {},
    read: {},
    starred: [],
    unreadOwn: [],
    topics: {},
    followPolicy: FOLLOW_ON_START,
    unmutePolicy: UNMUTE_ON_SEND,
  };
}

export const topicKey = (channelId: number, topic: string) => `${channelId}/${topic.toLowerCase()}`;

const without = (ids: number[], id: number) => ids.filter((x) => x !== id);
const withId = (ids: number[], id: number) => (ids.includes(id) ? ids : [...ids, id].sort((a, b) => a - b));

function setRead(state: UserState, target: FlagTarget, read: boolean): void {
  if (target.own) {
    state.unreadOwn = read ? without(state.unreadOwn, target.id) : withId(state.unreadOwn, target.id);
    return;
  }
  const ranges = state.read[target.key] ?? [];
  state.read[target.key] = read ? addRange(ranges, target.id, target.id) : removeId(ranges, target.id);
}

export function applyEvent(state: UserState, event: UserEvent): void {
  if (isPersonalEvent(event)) return applyPersonalEvent(state, event);
  if (isSettingsEvent(event)) return applySettingsEvent(state, event);
  if (isMutingEvent(event)) return applyMutingEvent(state, event);
  if (isScheduledEvent(event)) return applyScheduledEvent(state, event);
  switch (event.type) {
    case 'subscribed':
      state.subscriptions[event.channelId] ??= newSubscription(event.color);
      state.unsubscribed = without(state.unsubscribed, event.channelId);
      // What was sent before joining does not count as unread.
      if (event.lastMessageId > 0) {
        state.read[event.channelKey] = addRange(state.read[event.channelKey] ?? [], 0, event.lastMessageId);
        state.notReceived ??= {};
        state.notReceived[event.channelKey] = addRange(
          state.notReceived[event.channelKey] ?? [],
          0,
          event.lastMessageId,
        );
      }
      return;
    case 'unsubscribed':
      delete state.subscriptions[event.channelId];
      state.unsubscribed = withId(state.unsubscribed, event.channelId);
      return;
    case 'conversationSeen': {
      const known = state.conversations[event.key];
      state.conversations[event.key] = {
        key: event.key,
        user_ids: event.userIds,
        max_message_id: Math.max(known?.max_message_id ?? 0, event.messageId),
      };
      return;
    }
    case 'flagsChanged':
      for (const target of event.targets) {
        const unseen = state.notReceived?.[target.key];
        // The original's historical row: flags a message without a row could not have.
        const historical = (event.flag === 'starred') === (event.op === 'add');
        if (historical && unseen) state.notReceived![target.key] = removeId(unseen, target.id);
        if (event.flag === 'read') setRead(state, target, event.op === 'add');
        else state.starred = event.op === 'add' ? withId(state.starred, target.id) : without(state.starred, target.id);
      }
      return;
    case 'notReceived': {
      state.notReceived ??= {};
      let ranges = state.notReceived[event.key] ?? [];
      for (const id of event.ids) ranges = addRange(ranges, id, id);
      state.notReceived[event.key] = ranges;
      return;
    }
    case 'topicPolicySet': {
      const key = topicKey(event.channelId, event.topic);
      if (event.policy === 0) delete state.topics[key];
      else {
        state.topics[key] = {
          stream_id: event.channelId,
          topic_name: event.topic,
          visibility_policy: event.policy,
          last_updated: event.at,
        };
      }
      return;
    }
    case 'subscriptionChanged': {
      const sub = state.subscriptions[event.channelId];
      if (sub) Object.assign(sub, { [event.property]: event.value });
      return;
    }
    case 'queueAdded':
      applyPublicQueues(state, event);
      state.queues = [...(state.queues ?? []).filter((q) => q !== event.queueId), event.queueId];
      return;
    case 'queueRemoved':
      applyPublicQueues(state, event);
      state.queues = (state.queues ?? []).filter((q) => q !== event.queueId);
      return;
    case 'attachmentAdded':
    case 'attachmentsLinked':
    case 'attachmentRemoved':
      applyAttachmentEvent(state, event);
      return;
  }
}

/** A table of handlers for (part of) the UserActor's protocol. */
export type UserHandlers<P> = Handlers<UserState, UserEvent, P>;
