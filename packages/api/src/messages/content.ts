import { render, scan, type RenderLinkifier, type RenderUser } from '@chat/markdown';
import { ChatError, type PreparedContent, type Resolved } from '@chat/protocol';
import { asked, type CallerContext } from '../context.js';
import { activeByName, customEmoji } from '../realm/emoji-choice.js';

/**
 * Everyone in the groups the content mentions (not silently), who get the
 * `mentioned` flag; mentioning a group needs its `can_mention_group`.
 */
function mentionedGroupMembers(groups: Resolved['groups'], mentionedIds: number[]): number[] {
  const mentioned = groups.filter((g) => mentionedIds.includes(g.id));
  const refused = mentioned.find((g) => g.can_mention === false);
  if (refused) throw new ChatError('BAD_REQUEST', `You are not allowed to mention user group '${refused.name}'.`);
  return [...new Set(mentioned.flatMap((g) => g.members ?? []))].sort((a, b) => a - b);
}

/** The edges' copies of realms' linkifiers, by realm and digest: the caller's authentication says which is current. */
const linkifierCopies = new Map<string, { version: string; list: RenderLinkifier[] }>();

/** The realm's linkifiers; asked of the realm only when they changed since this edge last asked. */
export async function linkifiersOf(caller: CallerContext): Promise<RenderLinkifier[] | undefined> {
  const version = caller.principal.linkifiers_version;
  if (version === undefined) return undefined;
  const copy = linkifierCopies.get(caller.principal.realm);
  if (copy?.version === version) return copy.list;
  const list = await caller.actors.ask(caller.realm, { type: 'realm.linkifiers' });
  linkifierCopies.set(caller.principal.realm, { version, list });
  return list;
}

/** Renders Markdown after resolving, in one round trip to the realm, everything it mentions. */
export async function prepareContent(caller: CallerContext, content: string): Promise<PreparedContent> {
  const query = scan(content);
  const wanted = query.userNames.length + query.userIds.length + query.groupNames.length + query.channelNames.length;
  // Asked at once: what it mentions, the custom emoji (only when the content may name one), the linkifiers.
  const resolving =
    wanted === 0
      ? undefined
      : asked(
          caller.resolve({
            user_names: query.userNames,
            user_ids: query.userIds,
            group_names: query.groupNames,
            channel_names: query.channelNames,
            mentioner_id: caller.principal.user_id,
          }),
        );
  const emoji = /:[^\s:]+:/.test(content) ? asked(customEmoji(caller)) : undefined;
  const linkifying = asked(linkifiersOf(caller));
  const resolved = resolving ? await resolving : { users: [], groups: [], channels: [] };
  const realmEmoji = emoji ? activeByName(await emoji) : undefined;
  const linkifiers = await linkifying;
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
    ...(realmEmoji ? { realmEmoji } : {}),
    ...(linkifiers ? { linkifiers } : {}),
  });
  return {
    content,
    rendered: rendered.html,
    mentioned_user_ids: rendered.mentionedUserIds,
    mentioned_human_ids: resolved.users
      .filter((u) => !u.is_bot && u.is_active && rendered.mentionedUserIds.includes(u.user_id))
      .map((u) => u.user_id),
    mentioned_group_ids: rendered.mentionedGroupIds,
    group_member_ids: mentionedGroupMembers(resolved.groups, rendered.mentionedGroupIds),
    channel_wildcard: rendered.channelWildcard,
    topic_wildcard: rendered.topicWildcard,
    has_link: rendered.hasLink,
    has_image: rendered.hasImage,
    has_attachment: rendered.hasAttachment,
    upload_paths: rendered.uploadPaths,
  };
}
