import { newEnv } from './env.js';
import { topicLinks as linksOfTopic, type RenderLinkifier as Linkifier } from './linkifiers.js';
import { md } from './parser.js';
import type { MentionQuery, RenderContext, Rendered } from './types.js';

export type { MentionQuery, RenderChannel, RenderContext, RenderGroup, RenderUser, Rendered } from './types.js';
export { emojiCharacters, emojiCode, emojiNamesByCode, isEmojiName } from './emoji.js';
export { htmlToText } from './text.js';
export { topicUrl } from './urls.js';
export { linkifierPattern, type RenderLinkifier } from './linkifiers.js';

/** A topic's links (`topic_links`): the realm's linkifiers' matches and raw URLs, as the original finds them. */
export function topicLinks(topic: string, linkifiers: Linkifier[]): { text: string; url: string }[] {
  const urls = /[.:]/.test(topic) ? (md.linkify.match(topic) ?? []) : [];
  return linksOfTopic(topic, linkifiers, urls);
}
export { expandTemplate, templateVariables } from './url-template.js';

/** What a message's content refers to, found before rendering so the caller can resolve it in one round trip. */
export function scan(content: string): MentionQuery {
  const env = newEnv();
  md.parse(content, env);
  return {
    userNames: [...env.found.userNames],
    userIds: [...env.found.userIds],
    groupNames: [...env.found.groupNames],
    channelNames: [...env.found.channelNames],
  };
}

const sorted = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b);

/** Renders a message's Markdown to sanitized HTML, resolving mentions, channel links and emoji with `ctx`. */
export function render(content: string, ctx: RenderContext): Rendered {
  const env = newEnv(ctx);
  // The original's HTML has no trailing newline after the last block.
  const html = md.render(content, env).replace(/\n+$/, '');
  return {
    html,
    mentionedUserIds: sorted(env.mentioned),
    silentUserIds: sorted([...env.silent].filter((id) => !env.mentioned.has(id))),
    mentionedGroupIds: sorted(env.groups),
    channelWildcard: env.channelWildcard,
    topicWildcard: env.topicWildcard,
    hasLink: env.hasLink,
    hasImage: env.hasImage,
    hasAttachment: env.uploadPaths.size > 0,
    uploadPaths: [...env.uploadPaths],
  };
}
