import { Type, type TOptional } from '@sinclair/typebox';
import {
  ChatError,
  CHANNEL_PERMISSIONS,
  inGroupSetting,
  SYSTEM_GROUPS,
  type ChannelPermission,
  type ChannelPermissions,
  type GroupSetting,
} from '@chat/protocol';
import type { CallerContext } from '../context.js';

/** A group-setting value: a group id, or an anonymous group of users and subgroups. */
export const GroupSettingValue = Type.Union([
  Type.Integer(),
  Type.Object({ direct_members: Type.Array(Type.Integer()), direct_subgroups: Type.Array(Type.Integer()) }),
]);

/** The channel permissions a new channel may be given, each optional (the defaults are the original's). */
export const creationPermissionParams = Object.fromEntries(
  CHANNEL_PERMISSIONS.map((name) => [name, Type.Optional(GroupSettingValue)]),
) as Record<ChannelPermission, TOptional<typeof GroupSettingValue>>;

/** The permissions that only those in the realm's `can_set_delete_message_policy_group` may open to anyone. */
const DELETE_POLICIES: readonly ChannelPermission[] = ['can_delete_any_message_group', 'can_delete_own_message_group'];

/** As the original's parse_group_setting_value: an anonymous group of no one is `role:nobody`. */
export const canonicalGroupSetting = (value: GroupSetting): GroupSetting =>
  typeof value !== 'number' && value.direct_members.length === 0 && value.direct_subgroups.length === 0
    ? SYSTEM_GROUPS['role:nobody']
    : value;

/**
 * Channel permission values as the realm accepts them, for creation and
 * `PATCH /streams/{id}` alike: each group must exist and be active, each user
 * active, and no setting may name `role:internet` (nor `role:everyone` where
 * the original forbids it). Replies the values in canonical form.
 */
export async function checkChannelPermissions(
  caller: CallerContext,
  given: Partial<Record<ChannelPermission, GroupSetting>>,
): Promise<Partial<ChannelPermissions>> {
  const names = CHANNEL_PERMISSIONS.filter((name) => given[name] !== undefined);
  if (names.length === 0) return {};
  const values = names.map((name) => canonicalGroupSetting(given[name]!));
  const checked = await caller.actors.ask(caller.realm, { type: 'realm.checkGroupSettings', values, names });
  return Object.fromEntries(names.map((name, i) => [name, checked[i]!]));
}

/**
 * The permissions a new channel is created with, from the creation request:
 * checked as above, then the deletion policies, which only those in the realm's
 * `can_set_delete_message_policy_group` may set to anything but `role:nobody`.
 */
export async function newChannelPermissions(
  caller: CallerContext,
  given: Partial<Record<ChannelPermission, GroupSetting | undefined>> & { topics_policy?: string | undefined },
): Promise<Partial<ChannelPermissions>> {
  const present = Object.fromEntries(
    CHANNEL_PERMISSIONS.filter((name) => given[name] !== undefined).map((name) => [name, given[name]!]),
  );
  const permissions = await checkChannelPermissions(caller, present);
  if (DELETE_POLICIES.some((name) => opensTo(permissions[name])) && !(await maySetDeletePolicy(caller))) {
    throw new ChatError('BAD_REQUEST', 'Insufficient permission');
  }
  // A policy of its own, rather than the realm's, takes can_set_topics_policy_group (as the original).
  if (given.topics_policy !== undefined && given.topics_policy !== 'inherit') await checkTopicsPolicy(caller);
  return permissions;
}

/** Setting a channel's `topics_policy` takes the realm's `can_set_topics_policy_group` (members by default). */
export async function checkTopicsPolicy(caller: CallerContext): Promise<void> {
  const { settings } = await caller.actors.ask(caller.realm, { type: 'realm.organization' });
  if (!inGroupSetting(settings.can_set_topics_policy_group as GroupSetting, caller.principal)) {
    throw new ChatError('BAD_REQUEST', 'Insufficient permission');
  }
}

const opensTo = (value: GroupSetting | undefined) => value !== undefined && value !== SYSTEM_GROUPS['role:nobody'];

/** `can_set_delete_message_policy_group` is among the organization's options, not its messaging settings. */
async function maySetDeletePolicy(caller: CallerContext): Promise<boolean> {
  const { settings } = await caller.actors.ask(caller.realm, { type: 'realm.organization' });
  return inGroupSetting(settings.can_set_delete_message_policy_group as GroupSetting, caller.principal);
}
