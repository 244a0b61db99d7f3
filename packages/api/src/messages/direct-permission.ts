import {
  ChatError,
  inGroupSetting,
  SYSTEM_GROUPS,
  systemGroupsOf,
  type GroupSetting,
  type Member,
  type Principal,
  type RealmSettings,
  type UserRef,
} from '@chat/protocol';
import type { CallerContext } from '../context.js';

/** Someone in a direct message, with every group that contains them (or at least those the settings name). */
export interface DirectParty extends Member {
  is_bot: boolean;
}

type DirectSettings = Pick<RealmSettings, 'direct_message_permission_group' | 'direct_message_initiator_group'>;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
export const initiationRefused = () => bad('You do not have permission to initiate direct message conversations.');

/**
 * The original's `check_can_send_direct_message`, as a verdict: allowed, a
 * refusal, or allowed only if the conversation already has messages (the
 * sender may answer but not start one). Bots may always send, and a message
 * only to bots or oneself is always allowed.
 */
export function directMessageVerdict(
  sender: DirectParty,
  recipients: DirectParty[],
  settings: DirectSettings,
): 'allowed' | 'if-started' | ChatError {
  if (sender.is_bot) return 'allowed';
  if (recipients.every((u) => u.is_bot || u.user_id === sender.user_id)) return 'allowed';
  const permission = settings.direct_message_permission_group;
  if (![sender, ...recipients].some((u) => inGroupSetting(permission, u))) {
    return permission === SYSTEM_GROUPS['role:nobody']
      ? bad('Direct messages are disabled in this organization.')
      : bad('This conversation does not include any users who can authorize it.');
  }
  return inGroupSetting(settings.direct_message_initiator_group, sender) ? 'allowed' : 'if-started';
}

const SYSTEM_IDS = new Set<number>(Object.values(SYSTEM_GROUPS));

/** The recipients as members of the groups `setting` names: system groups by role, user groups asked of the realm. */
async function partiesOf(caller: CallerContext, setting: GroupSetting, users: UserRef[]): Promise<DirectParty[]> {
  const named = (typeof setting === 'number' ? [setting] : setting.direct_subgroups).filter(
    (id) => !SYSTEM_IDS.has(id),
  );
  const members = await Promise.all(
    named.map((group_id) =>
      caller.actors.ask(caller.realm, { type: 'realm.userGroupMembers', group_id, direct_only: false }),
    ),
  );
  return users.map((u) => ({
    user_id: u.user_id,
    is_bot: u.is_bot,
    groups: [...systemGroupsOf(u.role), ...named.filter((_, i) => members[i]!.includes(u.user_id))],
  }));
}

/** Refuses a direct message from `sender` to `recipients` (conversation `key`) as the realm's settings say. */
export async function checkDirectMessage(
  caller: CallerContext,
  sender: Principal,
  recipients: UserRef[],
  settings: DirectSettings,
  key: string,
): Promise<void> {
  const parties = await partiesOf(caller, settings.direct_message_permission_group, recipients);
  const verdict = directMessageVerdict(sender, parties, settings);
  if (verdict instanceof ChatError) throw verdict;
  if (verdict === 'if-started' && !(await caller.state()).conversations.some((c) => c.key === key)) {
    throw initiationRefused();
  }
}
