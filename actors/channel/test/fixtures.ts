import {
  defaultChannelPermissions,
  ROLES,
  SYSTEM_GROUPS,
  systemGroupsOf,
  type ChannelCommand,
  type ChannelInfo,
  type ChannelSettings,
  type Command,
  type PreparedContent,
  type Principal,
  type RealmSettings,
  type Role,
} from '@chat/protocol';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { channelBehavior, type ChannelEvent } from '../src/index.js';

export const REALM = 'zulip';

export function person(userId: number, role: Role = ROLES.member): Principal {
  return {
    realm: REALM,
    user_id: userId,
    email: `user${userId}@zulip.test`,
    role,
    is_bot: false,
    full_name: `User ${userId}`,
    groups: systemGroupsOf(role),
    can_create_users: false,
  };
}

/** The organization settings the rules under test read; the rest do not matter to them. */
export function realmSettings(changes: Partial<RealmSettings> = {}): RealmSettings {
  return {
    topics_policy: 'allow_empty_topic',
    can_mention_many_users_group: SYSTEM_GROUPS['role:administrators'],
    can_move_messages_between_channels_group: SYSTEM_GROUPS['role:members'],
    can_move_messages_between_topics_group: SYSTEM_GROUPS['role:everyone'],
    can_resolve_topics_group: SYSTEM_GROUPS['role:everyone'],
    move_messages_within_stream_limit_seconds: null,
    move_messages_between_streams_limit_seconds: null,
    allow_message_editing: true,
    message_content_edit_limit_seconds: 600,
    can_delete_own_message_group: SYSTEM_GROUPS['role:everyone'],
    can_delete_any_message_group: SYSTEM_GROUPS['role:administrators'],
    can_add_subscribers_group: SYSTEM_GROUPS['role:members'],
    can_create_public_channel_group: SYSTEM_GROUPS['role:members'],
    can_create_private_channel_group: SYSTEM_GROUPS['role:members'],
    ...changes,
  } as RealmSettings;
}

export function channelSettings(id: number, changes: Partial<ChannelSettings> = {}): ChannelSettings {
  return {
    ...defaultChannelPermissions(1),
    stream_id: id,
    name: `channel ${id}`,
    description: '',
    rendered_description: '',
    date_created: 0,
    creator_id: 1,
    invite_only: false,
    is_web_public: false,
    history_public_to_subscribers: true,
    message_retention_days: null,
    is_archived: false,
    folder_id: null,
    topics_policy: 'inherit',
    ...changes,
  };
}

/** A channel as `channel.info` shows it (the destination of a move). */
export const info = (id: number, subscribers: number[], changes: Partial<ChannelSettings> = {}): ChannelInfo => ({
  ...channelSettings(id, changes),
  subscribers,
  first_message_id: null,
  last_message_id: null,
});

export const created = (id: number, subscribers: number[], changes: Partial<ChannelSettings> = {}): ChannelEvent => ({
  type: 'channelCreated',
  channel: channelSettings(id, changes),
  subscribers,
});

/** The realm's message ids, as `realm.nextMessageId` hands them out: the next one above the asker's newest. */
function messageIds() {
  let next = 1;
  return (_to: unknown, body: Command) => {
    if (body.type !== 'realm.nextMessageId') throw new Error(`unexpected ask ${body.type}`);
    next = Math.max(next, Number(body.floor) + 1);
    return next++;
  };
}

/** A conversation actor whose journal holds `given`. */
export const conversation = (key: string, ...given: ChannelEvent[]) =>
  new BehaviorTestKit(channelBehavior, { key, answer: messageIds() }).given(given);

/** A channel actor (key `zulip:<id>`) whose journal holds `given`. */
export const channel = (id: number, ...given: ChannelEvent[]) => conversation(`${REALM}:${id}`, ...given);

export function prepared(content: string, facts: Partial<PreparedContent> = {}): PreparedContent {
  return {
    content,
    rendered: `<p>${content}</p>`,
    group_member_ids: [],
    mentioned_user_ids: [],
    mentioned_group_ids: [],
    channel_wildcard: false,
    topic_wildcard: false,
    has_link: false,
    has_image: false,
    has_attachment: false,
    upload_paths: [],
    ...facts,
  };
}

type Send = Extract<ChannelCommand, { type: 'message.send' }>;

export function send(sender: Principal, topic: string, changes: Partial<Send> = {}): Send {
  return {
    type: 'message.send',
    sender,
    topic,
    prepared: prepared('hello'),
    settings: realmSettings(),
    wildcard_threshold: 15,
    client: 'test',
    people: [],
    read_by_sender: true,
    ...changes,
  };
}

/** `message.delete` of one message by `actor`, under the default realm settings. */
export const deleteMessage = (actor: Principal, id: number): Extract<ChannelCommand, { type: 'message.delete' }> => ({
  type: 'message.delete',
  actor,
  message_id: id,
  settings: realmSettings(),
});
