import type { CallerContext } from '../../context.js';

/**
 * The organization's user groups (`realm_user_groups`, asked as
 * `realm_user_groups` or by its event type `user_group`) and channel folders
 * (`channel_folders`). Deactivated groups only for clients that know them;
 * archived folders always, since channels may still name them.
 */
export async function groupSections(
  caller: CallerContext,
  wants: (section: string) => boolean,
  includeDeactivated: boolean,
): Promise<Record<string, unknown>> {
  const [groups, folders] = await Promise.all([
    wants('realm_user_groups') || wants('user_group')
      ? caller.actors.ask(caller.realm, { type: 'realm.userGroups', include_deactivated: includeDeactivated })
      : undefined,
    wants('channel_folders') || wants('channel_folder')
      ? caller.actors.ask(caller.realm, { type: 'realm.channelFolders', include_archived: true })
      : undefined,
  ]);
  return {
    ...(groups !== undefined && { realm_user_groups: groups }),
    ...(folders !== undefined && { channel_folders: folders }),
  };
}
