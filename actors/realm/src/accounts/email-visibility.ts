import {
  EMAIL_VISIBILITY,
  placeholderEmail,
  realmUserUpdated,
  seesAddress,
  type UserAdminProtocol,
} from '@chat/protocol';
import type { Fanout } from '@chat/runtime';
import { avatarFields } from '../avatars.js';
import { toEveryone, toUsers } from '../broadcast.js';
import type { Account, RealmHandlers, RealmState } from '../state.js';

/**
 * A user's `email_address_visibility` changed: the realm keeps it, with the
 * API address it implies (the placeholder unless "everyone"), because every
 * list, message and event that names the user reads the address here.
 */
export interface EmailVisibilitySetEvent {
  type: 'emailVisibilitySet';
  userId: number;
  visibility: number;
  /** The API address while the real one is hidden; null: the real one. */
  apiEmail: string | null;
  /** The server's host the placeholder was made with, for accounts created hidden later. */
  domain: string;
}

/** The placeholder's domain before any caller told the realm its host (the original's fallback setting). */
const FALLBACK_DOMAIN = 'zulip.invalid';

/** The API address an account created now gets, per the organization's default visibility. */
export function startingVisibility(state: RealmState, id: number, isBot: boolean): Partial<Account> {
  const visibility = state.userDefaults?.email_address_visibility;
  if (isBot || typeof visibility !== 'number' || visibility === EMAIL_VISIBILITY.everyone) return {};
  return { emailVisibility: visibility, apiEmail: placeholderEmail(id, state.emailDomain ?? FALLBACK_DOMAIN) };
}

export function applyEmailVisibilitySet(state: RealmState, event: EmailVisibilitySetEvent): void {
  state.emailDomain = event.domain;
  const account = state.accounts[event.userId];
  if (!account) return;
  if (event.visibility === EMAIL_VISIBILITY.everyone) delete account.emailVisibility;
  else account.emailVisibility = event.visibility;
  if (event.apiEmail === null) delete account.apiEmail;
  else account.apiEmail = event.apiEmail;
}

/**
 * The original's events for the change: `delivery_email` (the address, or
 * null) to each user who gains or loses sight of it, and, when the API
 * address itself changes (to or from "everyone"), `new_email` and the
 * avatar's URLs to everyone.
 */
function announce(state: RealmState, account: Account, before: number, after: number, apiEmail: string | null) {
  const gained: number[] = [];
  const lost: number[] = [];
  for (const other of Object.values(state.accounts)) {
    if (!other.isActive || other.id === account.id) continue;
    const viewer = { user_id: other.id, role: other.role };
    const could = seesAddress(viewer, { user_id: account.id, email_address_visibility: before });
    const can = seesAddress(viewer, { user_id: account.id, email_address_visibility: after });
    if (could !== can) (can ? gained : lost).push(other.id);
  }
  const person = (fields: Record<string, unknown>) => [realmUserUpdated({ user_id: account.id, ...fields })];
  const fanouts: Fanout[] = [];
  if (gained.length) fanouts.push(toUsers(state, gained, person({ delivery_email: account.email })));
  if (lost.length) fanouts.push(toUsers(state, lost, person({ delivery_email: null })));
  if (before === EMAIL_VISIBILITY.everyone || after === EMAIL_VISIBILITY.everyone) {
    // Then the avatar too, as the original's notify_avatar_url_change: clients computed it from the old address.
    const avatar = avatarFields(account.email, account.avatarFile ?? null, account.avatarVersion);
    fanouts.push(toEveryone(state, [...person({ new_email: apiEmail ?? account.email }), ...person(avatar)]));
  }
  return fanouts;
}

export const emailVisibilityHandlers: RealmHandlers<Pick<UserAdminProtocol, 'realm.emailVisibility'>> = {
  'realm.emailVisibility': ({ state }, command) => {
    const account = state.accounts[command.user_id];
    // Bots' addresses are always visible, as the original keeps them.
    if (!account || account.botType !== null) return { reply: null };
    const before = account.emailVisibility ?? EMAIL_VISIBILITY.everyone;
    const after = command.visibility;
    if (before === after) return { reply: null };
    const apiEmail =
      after === EMAIL_VISIBILITY.everyone ? null : (account.apiEmail ?? placeholderEmail(account.id, command.domain));
    const event: EmailVisibilitySetEvent = {
      type: 'emailVisibilitySet',
      userId: account.id,
      visibility: after,
      apiEmail,
      domain: command.domain,
    };
    return { events: [event], fanouts: announce(state, account, before, after, apiEmail), reply: null };
  },
};
