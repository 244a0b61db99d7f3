import type { ProtocolOf } from './contract.js';

/** A custom emoji of the organization, as the API shows it (`realm_emoji`). */
export interface RealmEmoji {
  /** A number, as a string: the `emoji_code` of reactions and statuses with `reaction_type: realm_emoji`. */
  id: string;
  name: string;
  source_url: string;
  still_url: string | null;
  deactivated: boolean;
  author_id: number | null;
}

/** The replies of the custom emoji commands. */
export type EmojiReplies = {
  'realm.emoji': Record<string, RealmEmoji>;
  'realm.addEmoji': { id: string } | null;
  'realm.removeEmoji': null;
};

/**
 * The RealmActor's custom emoji commands. The edge stores the image first
 * and names its URL; the realm checks
 * the name, who may add or remove, and announces the whole new set.
 */
export type EmojiCommand =
  | { type: 'realm.emoji' }
  | {
      type: 'realm.addEmoji';
      actor_id: number;
      name: string;
      source_url: string;
      /** The name is also a Unicode emoji's (which only administrators may shadow). */
      overrides_default: boolean;
      /** Only check who may add it and the name, as the original does before it reads the image. */
      check_only?: boolean;
    }
  | { type: 'realm.removeEmoji'; actor_id: number; name: string };

export type EmojiProtocol = ProtocolOf<EmojiCommand, EmojiReplies>;
