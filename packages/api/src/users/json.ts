import { createHash } from 'node:crypto';
import { isAdministrator, isGuest, isOwner, type UserProfile } from '@chat/protocol';

/** The avatar of a user who uploaded none: an identicon keyed by address. */
export function gravatarUrl(email: string, version: number): string {
  const hash = createHash('md5').update(email.toLowerCase()).digest('hex');
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${version}`;
}

/**
 * A user as the API shows it. With `clientGravatar` the client computes
 * gravatar URLs itself, so `avatar_url` is null for users without an upload
 * (which, until avatars can be uploaded, is everyone).
 */
export function renderUser(user: UserProfile, clientGravatar: boolean, withProfileData = true) {
  return {
    user_id: user.user_id,
    delivery_email: user.delivery_email,
    email: user.email,
    full_name: user.full_name,
    date_joined: user.date_joined,
    is_active: user.is_active,
    is_owner: isOwner(user),
    is_admin: isAdministrator(user),
    is_guest: isGuest(user),
    is_bot: user.is_bot,
    bot_type: user.bot_type,
    bot_owner_id: user.bot_owner_id,
    role: user.role,
    timezone: user.timezone,
    avatar_url: clientGravatar ? null : gravatarUrl(user.email, user.avatar_version),
    avatar_version: user.avatar_version,
    // As the original: only when asked for, and never for bots, which cannot have custom profile fields.
    ...(withProfileData && !user.is_bot ? { profile_data: user.profile_data ?? {} } : {}),
  };
}
