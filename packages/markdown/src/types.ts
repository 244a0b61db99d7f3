/** What a message's content refers to, found before rendering so the caller can resolve it in one round trip. */
export interface MentionQuery {
  /** From `@**Full Name**` and `@_**Full Name**` (without `|id`). */
  userNames: string[];
  /** From `@**Full Name|123**` and `@**|123**`. */
  userIds: number[];
  /** From `@*group name*` and `@_*group name*`. */
  groupNames: string[];
  /** From `#**channel**`, `#**channel>topic**` and `#**channel>topic@123**`. */
  channelNames: string[];
}

export interface RenderUser {
  id: number;
  full_name: string;
}
export interface RenderGroup {
  id: number;
  name: string;
}
export interface RenderChannel {
  id: number;
  name: string;
}

import type { RenderLinkifier } from './linkifiers.js';

export interface RenderContext {
  /** Users matching a name, compared case-insensitively by the caller (there can be several). */
  usersByName: Map<string, RenderUser[]>;
  usersById: Map<number, RenderUser>;
  /** Key: lower-cased name. */
  groupsByName: Map<string, RenderGroup>;
  /** Key: lower-cased name. */
  channelsByName: Map<string, RenderChannel>;
  /** Custom realm emoji by name -> image URL, if any. */
  realmEmoji?: Map<string, { id: string; source_url: string }>;
  /** The realm's linkifiers, in the realm's order. */
  linkifiers?: RenderLinkifier[];
}

export interface Rendered {
  html: string;
  /** Non-silent user mentions (sorted, unique). */
  mentionedUserIds: number[];
  /** Users only silently mentioned. */
  silentUserIds: number[];
  /** Non-silent group mentions. */
  mentionedGroupIds: number[];
  /** `@**all**`, `@**everyone**`, `@**channel**`, `@**stream**` (non-silent). */
  channelWildcard: boolean;
  /** `@**topic**` (non-silent). */
  topicWildcard: boolean;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  /** Paths of uploads linked by the content, e.g. "2/ab/cdef/file.png" for links to /user_uploads/2/ab/cdef/file.png. */
  uploadPaths: string[];
}
