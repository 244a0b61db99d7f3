import type { QueueSpec, UserGroupEvent } from '@chat/protocol';

type Body = Record<string, unknown>;

/**
 * A `user_group` event as one client sees it. Clients without the
 * `include_deactivated_groups` capability do not know deactivated groups:
 * deactivation reaches them as `remove`, reactivation as `add`, and other
 * news about a deactivated group not at all (as in the original).
 */
export function presentGroupEvent(event: UserGroupEvent & { id: number }, spec: QueueSpec): Body[] {
  const { group_deactivated: aboutDeactivated, reactivated_group: group, ...shown } = event;
  if (spec.capabilities.include_deactivated_groups) return [shown];
  if (aboutDeactivated) return [];
  if (shown.op !== 'update') return [shown];
  const { id, group_id, data } = shown;
  if (data.deactivated === true) return [{ id, type: 'user_group', op: 'remove', group_id }];
  if (data.deactivated === false) return [{ id, type: 'user_group', op: 'add', group }];
  return [shown];
}
