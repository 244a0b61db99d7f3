import { render, scan, type RenderUser } from '@chat/markdown';
import type { PreparedContent } from '@chat/protocol';
import type { CallerContext } from './context.js';

/** Renders Markdown after resolving, in one round trip to the realm, everything it mentions. */
export async function prepareContent(caller: CallerContext, content: string): Promise<PreparedContent> {
  const query = scan(content);
  const wanted = query.userNames.length + query.userIds.length + query.groupNames.length + query.channelNames.length;
  const resolved =
    wanted === 0
      ? { users: [], groups: [], channels: [] }
      : await caller.resolve({
          user_names: query.userNames,
          user_ids: query.userIds,
          group_names: query.groupNames,
          channel_names: query.channelNames,
        });
  const usersByName = new Map<string, RenderUser[]>();
  for (const u of resolved.users) {
    const key = u.full_name.toLowerCase();
    usersByName.set(key, [...(usersByName.get(key) ?? []), { id: u.user_id, full_name: u.full_name }]);
  }
  const rendered = render(content, {
    usersByName,
    usersById: new Map(resolved.users.map((u) => [u.user_id, { id: u.user_id, full_name: u.full_name }])),
    groupsByName: new Map(resolved.groups.map((g) => [g.name.toLowerCase(), g])),
    channelsByName: new Map(resolved.channels.map((c) => [c.name.toLowerCase(), { id: c.channel_id, name: c.name }])),
  });
  return {
    content,
    rendered: rendered.html,
    mentioned_user_ids: rendered.mentionedUserIds,
    mentioned_group_ids: rendered.mentionedGroupIds,
    group_member_ids: [],
    channel_wildcard: rendered.channelWildcard,
    topic_wildcard: rendered.topicWildcard,
    has_link: rendered.hasLink,
    has_image: rendered.hasImage,
    has_attachment: rendered.hasAttachment,
    upload_paths: rendered.uploadPaths,
  };
}
