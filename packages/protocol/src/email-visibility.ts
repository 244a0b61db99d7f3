/**
 * Who sees a user's real address (`email_address_visibility`, a personal
 * setting): the original's five values and which roles each admits. A user
 * whose value is not "everyone" is shown to all under a placeholder API
 * address, `user<id>@<server host>`; the real one (`delivery_email`) only
 * to the roles the value admits, and always to the user themself.
 */
import { ROLES, type Role } from './realm.js';

export const EMAIL_VISIBILITY = { everyone: 1, members: 2, administrators: 3, nobody: 4, moderators: 5 } as const;

/** Which values let each role see the address (the original's table; owners as administrators). */
const SEEN_BY: Record<Role, readonly number[]> = {
  [ROLES.owner]: [1, 2, 3, 5],
  [ROLES.administrator]: [1, 2, 3, 5],
  [ROLES.moderator]: [1, 2, 5],
  [ROLES.member]: [1, 2],
  [ROLES.guest]: [1],
};

/** Roles that see the same addresses, so a rendering of the user list can be shared among them. */
export const addressClass = (role: Role): Role => (role <= ROLES.administrator ? ROLES.administrator : role);

export interface AddressTarget {
  user_id: number;
  /** Absent: everyone (the default, and always so for bots). */
  email_address_visibility?: number;
}

/** Whether `viewer` (absent: a spectator) may see `target`'s real address. */
export function seesAddress(viewer: { user_id: number; role: Role } | null, target: AddressTarget): boolean {
  if (!viewer) return false;
  if (viewer.user_id === target.user_id) return true;
  return SEEN_BY[viewer.role]?.includes(target.email_address_visibility ?? 1) ?? false;
}

/** The API address of a user whose real one is hidden. */
export const placeholderEmail = (userId: number, domain: string): string => `user${userId}@${domain}`;

/** The user id a placeholder address names, if `email` is one (any domain, as the original accepts). */
export function placeholderUserId(email: string): number | undefined {
  const match = /^user(\d+)@[^@]+$/i.exec(email.trim());
  return match ? Number(match[1]) : undefined;
}
