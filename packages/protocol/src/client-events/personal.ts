/** Client events about one user's own data, in the reference's shapes (`GET /events`). */
import type { MutedUser } from '../muting.js';
import type { Draft, E2eePushStatus, NavigationView, SavedSnippet } from '../personal.js';

export type DraftsEvent =
  | { type: 'drafts'; op: 'add'; drafts: Draft[] }
  | { type: 'drafts'; op: 'update'; draft: Draft }
  | { type: 'drafts'; op: 'remove'; draft_id: number };
export const draftsAdded = (drafts: Draft[]): DraftsEvent => ({ type: 'drafts', op: 'add', drafts });
export const draftUpdated = (draft: Draft): DraftsEvent => ({ type: 'drafts', op: 'update', draft });
export const draftRemoved = (draft_id: number): DraftsEvent => ({ type: 'drafts', op: 'remove', draft_id });

export type SavedSnippetsEvent =
  | { type: 'saved_snippets'; op: 'add' | 'update'; saved_snippet: SavedSnippet }
  | { type: 'saved_snippets'; op: 'remove'; saved_snippet_id: number };
export const snippetSaved = (op: 'add' | 'update', saved_snippet: SavedSnippet): SavedSnippetsEvent => ({
  type: 'saved_snippets',
  op,
  saved_snippet,
});
export const snippetRemoved = (saved_snippet_id: number): SavedSnippetsEvent => ({
  type: 'saved_snippets',
  op: 'remove',
  saved_snippet_id,
});

export type NavigationViewEvent =
  | { type: 'navigation_view'; op: 'add'; navigation_view: NavigationView }
  | { type: 'navigation_view'; op: 'update'; fragment: string; data: Partial<NavigationView> }
  | { type: 'navigation_view'; op: 'remove'; fragment: string };
export const viewAdded = (navigation_view: NavigationView): NavigationViewEvent => ({
  type: 'navigation_view',
  op: 'add',
  navigation_view,
});
export const viewUpdated = (fragment: string, data: Partial<NavigationView>): NavigationViewEvent => ({
  type: 'navigation_view',
  op: 'update',
  fragment,
  data,
});
export const viewRemoved = (fragment: string): NavigationViewEvent => ({
  type: 'navigation_view',
  op: 'remove',
  fragment,
});

export type MutedUsersEvent = { type: 'muted_users'; muted_users: MutedUser[] };
export const mutedUsersEvent = (muted_users: MutedUser[]): MutedUsersEvent => ({ type: 'muted_users', muted_users });

export type AlertWordsEvent = { type: 'alert_words'; alert_words: string[] };
export const alertWordsEvent = (alert_words: string[]): AlertWordsEvent => ({ type: 'alert_words', alert_words });

export type UserTopicEvent = {
  type: 'user_topic';
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: number;
};
export const userTopicEvent = (
  stream_id: number,
  topic_name: string,
  visibility_policy: number,
  last_updated: number,
): UserTopicEvent => ({
  type: 'user_topic',
  stream_id,
  topic_name,
  last_updated,
  visibility_policy,
});

/** `message_details` only when unread is set back (the edge leaves it as built). */
export type UpdateMessageFlagsEvent = {
  type: 'update_message_flags';
  op: 'add' | 'remove';
  operation: 'add' | 'remove';
  flag: string;
  messages: number[];
  all: boolean;
  message_details?: Record<string, unknown>;
};
export const flagsUpdated = (op: 'add' | 'remove', flag: string, messages: number[]): UpdateMessageFlagsEvent => ({
  type: 'update_message_flags',
  op,
  operation: op,
  flag,
  messages,
  all: false,
});

/** `push_device`: an E2EE registration's status changed (push account ids are strings in events). */
export type PushDeviceEvent = {
  type: 'push_device';
  push_account_id: string;
  status: E2eePushStatus;
  error_code?: string | null;
};
export const pushDeviceChanged = (
  push_account_id: number,
  status: E2eePushStatus,
  error_code: string | null,
): PushDeviceEvent => ({
  type: 'push_device',
  push_account_id: String(push_account_id),
  status,
  ...(status === 'failed' && { error_code }),
});

export type PersonalEvent =
  | PushDeviceEvent
  | DraftsEvent
  | SavedSnippetsEvent
  | NavigationViewEvent
  | MutedUsersEvent
  | AlertWordsEvent
  | UserTopicEvent
  | UpdateMessageFlagsEvent;
