/** Canonical operator names; legacy spellings are rewritten to these by `parseNarrow`. */
export type Operator =
  | 'channel'
  | 'channels'
  | 'topic'
  | 'dm'
  | 'dm-including'
  | 'sender'
  | 'is'
  | 'has'
  | 'in'
  | 'near'
  | 'id'
  | 'with'
  | 'search';

/** One narrow term after parsing, with operator names canonicalized. */
export interface NarrowTerm {
  operator: Operator;
  /**
   * `channel`: id or name; `sender`/`dm-including`: id or e-mail; `dm`: ids or a comma-separated e-mail
   * list; `id`/`near`/`with`: message id; everything else: a string.
   */
  operand: string | number | number[];
  negated: boolean;
}

export const IS_OPERANDS = [
  'dm',
  'starred',
  'mentioned',
  'unread',
  'resolved',
  'alerted',
  'followed',
  'muted',
] as const;
export type IsOperand = (typeof IS_OPERANDS)[number];

export const HAS_OPERANDS = ['link', 'attachment', 'image', 'reaction'] as const;
export type HasOperand = (typeof HAS_OPERANDS)[number];

export const CHANNELS_OPERANDS = ['public', 'web-public'] as const;
export type ChannelsOperand = (typeof CHANNELS_OPERANDS)[number];

export const IN_OPERANDS = ['home', 'all'] as const;
export type InOperand = (typeof IN_OPERANDS)[number];

/** A term whose names and e-mails have been replaced by ids, so matching needs no lookups. */
export type ResolvedTerm = { negated: boolean } & (
  | { operator: 'channel'; operand: number }
  | { operator: 'channels'; operand: ChannelsOperand }
  | { operator: 'topic'; operand: string }
  /** The other participants named by the term; the viewer is always implied. */
  | { operator: 'dm'; operand: number[] }
  | { operator: 'dm-including' | 'sender'; operand: number }
  | { operator: 'is'; operand: IsOperand }
  | { operator: 'has'; operand: HasOperand }
  | { operator: 'in'; operand: InOperand }
  | { operator: 'near' | 'id' | 'with'; operand: number }
  | { operator: 'search'; operand: string }
);

/** Topic visibility policies, numbered as the original's user-topic API numbers them. */
export const TopicVisibility = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

/** A message as the engine sees it. */
export interface NarrowMessage {
  id: number;
  sender_id: number;
  /** null for a direct message */
  channel_id: number | null;
  channel_is_public: boolean;
  channel_is_web_public: boolean;
  /** '' for direct messages */
  topic: string;
  /** All participants of a direct message including the sender (sorted unique); [] for channel messages. */
  dm_user_ids: number[];
  /** raw Markdown */
  content: string;
  /** plain text of the rendered HTML, for search */
  text: string;
  /** rendered HTML, for highlighting */
  rendered: string;
  /** the viewer's flags: read, starred, mentioned, wildcard_mentioned, has_alert_word... */
  flags: string[];
  has: { link: boolean; attachment: boolean; image: boolean; reaction: boolean };
  /** The viewer's visibility policy for this message's topic (see `TopicVisibility`); absent means inherit. */
  topic_visibility?: number;
  /** Whether the viewer has muted this message's channel. */
  channel_muted?: boolean;
}

/** Which conversations a narrow can only be in. */
export type NarrowScope =
  | { kind: 'channel'; channelId: number }
  | { kind: 'dm'; userIds: number[] }
  | { kind: 'message'; ids: number[] }
  | { kind: 'all' };
