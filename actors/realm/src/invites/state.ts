import type { Role } from '@chat/protocol';
import type { RealmState } from '../state.js';

/** One pending e-mail invitation. Accepted and revoked ones are dropped. */
export interface Invite {
  id: number;
  email: string;
  invitedBy: number;
  /** Epoch seconds; reset by a resend. */
  invitedAt: number;
  /** Epoch seconds; null: never. */
  expiresAt: number | null;
  /** The validity asked for, so that a resend grants the same again. */
  validMinutes: number | null;
  role: Role;
  streamIds: number[];
  groupIds: number[];
  includeDefaults: boolean;
  notifyReferrer: boolean;
  welcomeText: string | null;
  /** sha256 of the mailed key (hex). */
  keyHash: string;
}

/** A reusable invitation link: anyone who has it may join, until it expires or is revoked. */
export interface InviteLink {
  id: number;
  invitedBy: number;
  invitedAt: number;
  expiresAt: number | null;
  role: Role;
  streamIds: number[];
  groupIds: number[];
  includeDefaults: boolean;
  welcomeText: string | null;
  /** The key itself, as the original keeps it, so that the link can be listed again. */
  key: string;
  keyHash: string;
  /** Revoked links are kept, so that revoking one twice says so. */
  revoked: boolean;
}

/** An address change waiting for its confirmation link to be followed. */
export interface EmailChange {
  userId: number;
  newEmail: string;
  keyHash: string;
  expiresAt: number;
}

export type InviteEvent =
  | { type: 'invitesCreated'; invites: Invite[] }
  | { type: 'inviteRemoved'; inviteId: number }
  | { type: 'inviteRenewed'; inviteId: number; keyHash: string; invitedAt: number; expiresAt: number | null }
  | { type: 'emailChangeRequested'; change: EmailChange }
  | { type: 'emailChangeDropped'; keyHash: string }
  | { type: 'emailChanged'; userId: number; email: string }
  | { type: 'inviteLinkCreated'; link: InviteLink }
  | { type: 'inviteLinkRevoked'; inviteId: number };

export const isExpired = (expiresAt: number | null, nowMs: number) => expiresAt !== null && expiresAt * 1000 <= nowMs;

export function applyInviteEvent(state: RealmState, event: InviteEvent): void {
  const invites = (state.invites ??= {});
  const changes = (state.emailChanges ??= {});
  switch (event.type) {
    case 'invitesCreated':
      for (const invite of event.invites) invites[invite.id] = invite;
      state.nextInviteId = Math.max(state.nextInviteId ?? 1, ...event.invites.map((i) => i.id + 1));
      return;
    case 'inviteRemoved':
      delete invites[event.inviteId];
      return;
    case 'inviteLinkCreated':
      (state.inviteLinks ??= {})[event.link.id] = event.link;
      return;
    case 'inviteLinkRevoked':
      state.inviteLinks![event.inviteId]!.revoked = true;
      return;
    case 'inviteRenewed':
      Object.assign(invites[event.inviteId]!, {
        keyHash: event.keyHash,
        invitedAt: event.invitedAt,
        expiresAt: event.expiresAt,
      });
      return;
    case 'emailChangeRequested':
      // One pending change per user: a newer request replaces the older link.
      for (const [hash, change] of Object.entries(changes)) {
        if (change.userId === event.change.userId) delete changes[hash];
      }
      changes[event.change.keyHash] = event.change;
      return;
    case 'emailChangeDropped':
      delete changes[event.keyHash];
      return;
    case 'emailChanged': {
      const account = state.accounts[event.userId]!;
      delete state.byEmail[account.email.toLowerCase()];
      account.email = event.email;
      state.byEmail[event.email.toLowerCase()] = account.id;
      for (const [hash, change] of Object.entries(changes)) {
        if (change.userId === event.userId) delete changes[hash];
      }
      return;
    }
  }
}
