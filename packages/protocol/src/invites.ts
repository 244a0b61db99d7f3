import type { Principal, Role, CreatedUser } from './realm.js';
import type { ProtocolOf } from './contract.js';

/**
 * Invitations by e-mail and e-mail address changes: the RealmActor keeps
 * them. Their secret keys never reach the actor: the edge mails the key and
 * sends only its hash, so neither state nor journal can be used to accept an
 * e-mail invitation. A reusable link's key is kept (as the original keeps
 * it), because `GET /invites` shows the link again.
 */
export interface InviteOptions {
  role: Role;
  stream_ids: number[];
  group_ids: number[];
  include_realm_default_subscriptions: boolean;
  notify_referrer_on_join: boolean;
  /** null: the organization's default; '' none. Only kept for administrators. */
  welcome_message_custom_text: string | null;
  /** null: never expires. */
  expires_in_minutes: number | null;
}

/** What the edge learned about a requested channel from its ChannelActor. */
export interface InviteChannelCheck {
  channel_id: number;
  /** The caller may read the channel (content access, as the original's access_stream_by_id). */
  visible: boolean;
  /** The caller may add subscribers to it. */
  may_add_subscribers: boolean;
}

/** An invitation as `GET /invites` shows it: an e-mail one, or a reusable link (whose URL the edge makes of `link_key`). */
export type InviteJson =
  | {
      id: number;
      invited_by_user_id: number;
      invited: number;
      expiry_date: number | null;
      invited_as: Role;
      email: string;
      notify_referrer_on_join: boolean;
      is_multiuse: false;
    }
  | {
      id: number;
      invited_by_user_id: number;
      invited: number;
      expiry_date: number | null;
      invited_as: Role;
      is_multiuse: true;
      link_key: string;
    };

/** What accepting an invitation leaves for the edge to do. */
export interface AcceptedInvite {
  user: CreatedUser;
  referrer_id: number;
  notify_referrer_on_join: boolean;
  /** The requested channels, plus the default ones when asked for. */
  stream_ids: number[];
  group_ids: number[];
  welcome_message_custom_text: string | null;
}

export type InviteCommand =
  | {
      type: 'realm.invite';
      inviter: Principal;
      /** Addresses with the hash of the key mailed to each. */
      invitees: Array<{ email: string; key_hash: string }>;
      options: InviteOptions;
      channels: InviteChannelCheck[];
    }
  /** Unexpired invitations the viewer may manage (administrators: all). */
  | { type: 'realm.invites'; viewer: Principal }
  | { type: 'realm.revokeInvite'; actor: Principal; invite_id: number }
  /** A new key and a fresh validity period of the same length. */
  | { type: 'realm.resendInvite'; actor: Principal; invite_id: number; key_hash: string }
  /**
   * A reusable invitation link (`POST /invites/multiuse`). Unlike a mailed key, its key is kept, as the
   * original keeps it: `GET /invites` shows the link again to those who may manage it.
   */
  | {
      type: 'realm.createInviteLink';
      inviter: Principal;
      key: string;
      key_hash: string;
      options: Omit<InviteOptions, 'notify_referrer_on_join'>;
      channels: InviteChannelCheck[];
    }
  | { type: 'realm.revokeInviteLink'; actor: Principal; invite_id: number }
  /** The invitation a link names, for the join page; refused when unknown, expired or revoked. */
  | { type: 'realm.inviteByKey'; key_hash: string }
  /** `email` is the new person's address for a reusable link; a mailed invitation has its own. */
  | { type: 'realm.acceptInvite'; key_hash: string; full_name: string; password_hash: string; email?: string }
  /** Records a pending change; the address changes only on confirmation. */
  | { type: 'realm.requestEmailChange'; user_id: number; new_email: string; key_hash: string }
  | { type: 'realm.confirmEmailChange'; key_hash: string }
  /** An administrator holding `can_change_user_emails` changes another's address at once (PATCH /users/{id} `new_email`). */
  | { type: 'realm.changeUserEmail'; actor: Principal; user_id: number; new_email: string };

/** What the join page shows about an invitation; a reusable link has no address (`multiuse`), the page asks for one. */
export type InviteFacts = { email: string; realm_name: string; referrer_name: string; multiuse?: boolean };

/** The reply to `realm.requestEmailChange`: false when the address is already the account's. */
export type EmailChangeStarted =
  { started: false } | { started: true; old_email: string; full_name: string; realm_name: string };

/** The reply to `realm.confirmEmailChange`. */
export type EmailChanged = { user_id: number; old_email: string; new_email: string; realm_name: string };

export type InviteReplies = {
  'realm.invite': InviteResult;
  'realm.invites': InviteJson[];
  'realm.revokeInvite': null;
  'realm.resendInvite': { email: string; referrer_name: string; expiry_date: number | null };
  'realm.createInviteLink': { id: number };
  'realm.revokeInviteLink': null;
  'realm.inviteByKey': InviteFacts;
  'realm.acceptInvite': AcceptedInvite;
  'realm.requestEmailChange': EmailChangeStarted;
  'realm.confirmEmailChange': EmailChanged;
  'realm.changeUserEmail': null;
};

/** The reply to `realm.invite`: who was invited, and who was skipped and why. */
export interface InviteResult {
  invited: Array<{ id: number; email: string; key_hash: string; expiry_date: number | null }>;
  /** [address, reason, deactivated], as `INVITATION_FAILED` reports them. */
  skipped: Array<[string, string, boolean]>;
}

export type InviteProtocol = ProtocolOf<InviteCommand, InviteReplies>;
