import type { ProtocolOf } from './contract.js';
/**
 * Commands of a UserActor about whom and what its user hears: muted users,
 * alert words, and the read receipts the user gives others.
 */

/** The reference's entry of `muted_users`: whom, since when (seconds). */
export interface MutedUser {
  id: number;
  timestamp: number;
}

/** The register sections these commands feed. */
export interface MutingSnapshot {
  muted_users?: MutedUser[];
  alert_words?: string[];
}

export type MutingReplies = {
  'user.muteUser': null;
  'user.unmuteUser': null;
  'user.alertWords': { alert_words: string[] };
  'user.addAlertWords': { alert_words: string[] };
  'user.removeAlertWords': { alert_words: string[] };
  'user.readReceipt': boolean;
  'user.mutingSnapshot': MutingSnapshot;
};

export type MutingCommand =
  /** Mutes a user and marks what they sent read; refused when already muted. */
  | { type: 'user.muteUser'; muted_user_id: number }
  | { type: 'user.unmuteUser'; muted_user_id: number }
  /** Replies `{alert_words}`, as each change does. */
  | { type: 'user.alertWords' }
  | { type: 'user.addAlertWords'; words: string[] }
  | { type: 'user.removeAlertWords'; words: string[] }
  /**
   * Whether the user shows `asker` having read this message: read, read
   * receipts on, and `asker` not muted by them.
   */
  | {
      type: 'user.readReceipt';
      key: string;
      message_id: number;
      asker: number;
      /** The conversation says the user has the message (a former subscriber's, say). */
      held?: boolean;
    }
  /** The register sections named in `sections` (`muted_users`, `alert_words`). */
  | { type: 'user.mutingSnapshot'; sections: string[] };

export type MutingProtocol = ProtocolOf<MutingCommand, MutingReplies>;
