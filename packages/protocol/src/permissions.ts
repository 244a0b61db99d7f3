/**
 * Every rule that depends on a person's role, in one place. Roles are
 * numbers where a smaller one is stronger (owner 100 ... guest 600), so each
 * comparison is written once, here; the rest of the code asks these
 * predicates. Rules that depend on group settings only stay with
 * `inGroupSetting` (groups.ts); the ones mixing both are below.
 */
import type { ChannelSettings } from './channel.js';
import { inGroupSetting, SYSTEM_GROUPS, type GroupSetting, type Member, type UserGroupPermission } from './groups.js';
import { ROLES, type Role } from './realm.js';

/** Anyone with a role: an account, a principal, a profile. */
export interface Ranked {
  role: number;
}
/** Someone whose role and groups are both checked. */
export type Person = Member & Ranked;

// The roles. Each role holds every permission of the roles below it.

/** The original's `is_realm_owner`. */
export const isOwner = (who: Ranked) => who.role === ROLES.owner;
/** The original's `is_realm_admin`: administrators and owners. */
export const isAdministrator = (who: Ranked) => who.role <= ROLES.administrator;
/** The original's `is_moderator`: moderators, administrators and owners. */
export const isModeratorOrAbove = (who: Ranked) => who.role <= ROLES.moderator;
/** The original's `is_guest`. */
export const isGuest = (who: Ranked) => who.role === ROLES.guest;

/** The system groups a role belongs to, each implying the wider ones. */
export function systemGroupsOf(role: Role): number[] {
  const groups: number[] = [SYSTEM_GROUPS['role:internet'], SYSTEM_GROUPS['role:everyone']];
  const who = { role };
  if (isGuest(who)) return groups;
  groups.push(SYSTEM_GROUPS['role:members'], SYSTEM_GROUPS['role:fullmembers']);
  if (isModeratorOrAbove(who)) groups.push(SYSTEM_GROUPS['role:moderators']);
  if (isAdministrator(who)) groups.push(SYSTEM_GROUPS['role:administrators']);
  if (isOwner(who)) groups.push(SYSTEM_GROUPS['role:owners']);
  return groups;
}

/**
 * Who may give or take a role (the original's `update_user_backend`):
 * making or unmaking an owner takes an owner, any other change an
 * administrator. Answers the role the actor lacks, or null.
 */
export function roleChangeRefusal(actor: Ranked, from: Role, to: Role): 'owner' | 'administrator' | null {
  if ((from === ROLES.owner || to === ROLES.owner) && !isOwner(actor)) return 'owner';
  return isAdministrator(actor) ? null : 'administrator';
}

/** The original's `can_admin_user`: administrators manage every account, anyone the bots they own. */
export const mayManageUser = (actor: Ranked & { id: number }, target: { botOwnerId: number | null }) =>
  isAdministrator(actor) || target.botOwnerId === actor.id;

// Channels.

/** Guests never see public channels they are not subscribed to (the original's guest restrictions). */
export const maySeePublicChannels = (who: Ranked) => !isGuest(who);

/** Administrators see every channel's settings and subscribers, private ones included, and may list them all. */
export const maySeeAllChannels = (who: Ranked) => isAdministrator(who);

/** What content access depends on, besides the person and their subscription. */
export type ContentAccessFields = Pick<
  ChannelSettings,
  'invite_only' | 'is_web_public' | 'can_add_subscribers_group' | 'can_subscribe_group'
>;

/**
 * Who may read a channel's messages (the original's `user_has_content_access`):
 * everyone a web-public channel's (guests too), subscribers, non-guests a
 * public channel's, and non-guests in the channel's `can_add_subscribers_group`
 * or `can_subscribe_group` a private one's (guests never through a group:
 * those settings do not allow everyone). Administrators get no more.
 */
export function mayReadChannel(who: Person, channel: ContentAccessFields, subscribed: boolean): boolean {
  if (channel.is_web_public || subscribed) return true;
  if (isGuest(who)) return false;
  if (!channel.invite_only) return true;
  return inGroupSetting(channel.can_add_subscribers_group, who) || inGroupSetting(channel.can_subscribe_group, who);
}

/** Content access to a private channel one is not subscribed to, which only its groups give. */
export const readsThroughGroups = (who: Person, channel: ContentAccessFields, subscribed: boolean) =>
  !subscribed && channel.invite_only && !channel.is_web_public && mayReadChannel(who, channel, subscribed);

/**
 * Whether one's groups let one know of a private channel (the original's
 * `has_metadata_access_to_channel_via_groups`): non-guests in its
 * `can_administer_channel_group`, `can_add_subscribers_group` or `can_subscribe_group`.
 */
export const knowsThroughGroups = (
  who: Person,
  channel: Pick<ChannelSettings, 'can_administer_channel_group' | 'can_add_subscribers_group' | 'can_subscribe_group'>,
) =>
  !isGuest(who) &&
  (inGroupSetting(channel.can_administer_channel_group, who) ||
    inGroupSetting(channel.can_add_subscribers_group, who) ||
    inGroupSetting(channel.can_subscribe_group, who));

/**
 * A channel one was once subscribed to stays in `unsubscribed` only where one may still know of it
 * (the original's `has_metadata_access_to_previously_subscribed_stream`): web-public ones for
 * everyone, other public ones for non-guests, private ones for administrators only.
 */
export const mayKnowFormerChannel = (who: Ranked, channel: Pick<ChannelSettings, 'invite_only' | 'is_web_public'>) =>
  channel.is_web_public || (maySeePublicChannels(who) && (!channel.invite_only || isAdministrator(who)));

/**
 * The original's `can_administer_accessible_channel`: administrators, or
 * non-guests in `can_administer_channel_group` (a setting that never admits guests).
 */
export const mayAdministerChannel = (who: Person, channel: Pick<ChannelSettings, 'can_administer_channel_group'>) =>
  isAdministrator(who) || (!isGuest(who) && inGroupSetting(channel.can_administer_channel_group, who));

/**
 * Subscribing someone else (the original's `can_subscribe_others`): never a
 * guest; channel administrators and the channel's `can_add_subscribers_group`
 * always; otherwise who can read the channel and is in the realm's
 * `can_add_subscribers_group`.
 */
export function mayAddSubscribers(
  who: Person,
  channel: ContentAccessFields & Pick<ChannelSettings, 'can_administer_channel_group'>,
  subscribed: boolean,
  realmSetting: GroupSetting,
): boolean {
  if (isGuest(who)) return false;
  if (mayAdministerChannel(who, channel) || inGroupSetting(channel.can_add_subscribers_group, who)) return true;
  return mayReadChannel(who, channel, subscribed) && inGroupSetting(realmSetting, who);
}

/** Only administrators make a channel a default one for new users. */
export const mayManageDefaultChannels = (who: Ranked) => isAdministrator(who);

/** Only administrators change channel folders (create, edit, reorder). */
export const mayManageChannelFolders = (who: Ranked) => isAdministrator(who);

// Messages.

/** Deleting a whole topic is for administrators ("Must be an organization administrator"). */
export const mayDeleteTopic = (who: Ranked) => isAdministrator(who);

/** Moderators and above move messages whatever the realm's time limits for moving say. */
export const mayMoveAfterTimeLimit = (who: Ranked) => isModeratorOrAbove(who);

// Users, groups and invitations.

/**
 * Creating accounts with `POST /users`: administrators who also hold the
 * `can_create_users` permission (the original's, since feature level 36).
 * The two are refused differently, so callers check `isAdministrator` first.
 */
export const mayCreateUsers = (who: Ranked & { can_create_users: boolean }) =>
  isAdministrator(who) && who.can_create_users;

/** User-group permissions the original never grants to guests (nor may they be set to role:everyone). */
export const GROUP_PERMISSIONS_NOT_FOR_GUESTS: readonly UserGroupPermission[] = [
  'can_add_members_group',
  'can_join_group',
  'can_manage_group',
  'can_remove_members_group',
];

/** Guests never hold those, even when the setting names a group that contains them. */
export const mayHoldGroupPermission = (who: Ranked, permission: UserGroupPermission) =>
  !isGuest(who) || !GROUP_PERMISSIONS_NOT_FOR_GUESTS.includes(permission);

/** Inviting: never guests, and only those in the realm's `can_invite_users_group`. */
export const mayInviteUsers = (who: Person, canInviteUsersGroup: GroupSetting) =>
  !isGuest(who) && inGroupSetting(canInviteUsersGroup, who);

/** An invitation grants the inviter's role or a weaker one, never a stronger one. */
export const mayInviteAs = (inviter: Ranked, role: number) => role >= inviter.role;

/** Administrators see and manage everyone's invitations (and hear `invites_changed`); others only their own. */
export const mayManageAllInvites = (who: Ranked) => isAdministrator(who);

/** An invitation to become an owner is managed by owners only ("Must be an organization owner"). */
export const mayManageInviteAs = (who: Ranked, invitedAs: number) => invitedAs !== ROLES.owner || isOwner(who);

/** Only administrators' invitations carry a custom welcome message. */
export const mayWriteWelcomeMessage = (who: Ranked) => isAdministrator(who);
