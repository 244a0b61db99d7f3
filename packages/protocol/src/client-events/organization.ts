/** Organization-wide client events beyond `realm` itself, in the reference's shapes (`GET /events`). */
import type { RealmEmoji } from '../emoji.js';
import type { ChannelFolder } from '../folders.js';
import type { Playground } from '../playgrounds.js';
import type { RealmValue } from '../realm-settings.js';

export type RealmEmojiEvent = { type: 'realm_emoji'; op: 'update'; realm_emoji: Record<string, RealmEmoji> };
export const realmEmojiEvent = (realm_emoji: Record<string, RealmEmoji>): RealmEmojiEvent => ({
  type: 'realm_emoji',
  op: 'update',
  realm_emoji,
});

export type RealmPlaygroundsEvent = { type: 'realm_playgrounds'; realm_playgrounds: Playground[] };
export const realmPlaygroundsEvent = (realm_playgrounds: Playground[]): RealmPlaygroundsEvent => ({
  type: 'realm_playgrounds',
  realm_playgrounds,
});

/** The ids of the default channels (objects before feature level 330). */
export type DefaultStreamsEvent = { type: 'default_streams'; default_streams: number[] };
export const defaultStreamsEvent = (default_streams: number[]): DefaultStreamsEvent => ({
  type: 'default_streams',
  default_streams,
});

export type ChannelFolderEvent =
  | { type: 'channel_folder'; op: 'add'; channel_folder: ChannelFolder }
  | { type: 'channel_folder'; op: 'update'; channel_folder_id: number; data: Partial<ChannelFolder> }
  | { type: 'channel_folder'; op: 'reorder'; order: number[] };
export const folderAdded = (channel_folder: ChannelFolder): ChannelFolderEvent => ({
  type: 'channel_folder',
  op: 'add',
  channel_folder,
});
export const folderUpdated = (channel_folder_id: number, data: Partial<ChannelFolder>): ChannelFolderEvent => ({
  type: 'channel_folder',
  op: 'update',
  channel_folder_id,
  data,
});
export const foldersReordered = (order: number[]): ChannelFolderEvent => ({
  type: 'channel_folder',
  op: 'reorder',
  order,
});

export type InvitesChangedEvent = { type: 'invites_changed' };
export const invitesChanged = (): InvitesChangedEvent => ({ type: 'invites_changed' });

/** `user_status`: only the fields that changed. */
export type UserStatusEvent = {
  type: 'user_status';
  user_id: number;
  away?: boolean;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
};
export const userStatusEvent = (
  user_id: number,
  changed: Omit<UserStatusEvent, 'type' | 'user_id'>,
): UserStatusEvent => ({
  type: 'user_status',
  user_id,
  ...changed,
});

export type RealmUserSettingsDefaultsEvent = {
  type: 'realm_user_settings_defaults';
  op: 'update';
  property: string;
  value: RealmValue;
};
export const userDefaultsUpdated = (property: string, value: RealmValue): RealmUserSettingsDefaultsEvent => ({
  type: 'realm_user_settings_defaults',
  op: 'update',
  property,
  value,
});

export type OrganizationEvent =
  | RealmEmojiEvent
  | RealmPlaygroundsEvent
  | DefaultStreamsEvent
  | ChannelFolderEvent
  | InvitesChangedEvent
  | UserStatusEvent
  | RealmUserSettingsDefaultsEvent;
