import type { QueueSpec } from '@chat/protocol';

type Body = Record<string, unknown>;

/**
 * A `user_group` event as one client sees it. Clients without the
 * `include_deactivated_groups` capability do not know deactivated groups:
 * deactivation reaches them as `remove`, reactivation as `add`, and other
 * news about a deactivated group not at all (as in the original).
 */
export function presentGroupEvent(event: Body, spec: QueueSpec): Body[] {
  const { group_deactivated: aboutDeactivated, reactivated_group: group, ...shown } = event;
  if (spec.capabilities.include_deactivated_groups) return [shown];
  if (aboutDeactivated) return [];
  const deactivated = (shown.data as Body | undefined)?.deactivated;
  if (shown.op === 'update' && deactivated === true) {
    return [{ id: shown.id, type: 'user_group', op: 'remove', group_id: shown.group_id }];
  }
  if (shown.op === 'update' && deactivated === false) return [{ id: shown.id, type: 'user_group', op: 'add', group }];
  return [shown];
}
