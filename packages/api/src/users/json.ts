import { gravatarUrl, isAdministrator, isGuest, isOwner, type UserProfile } from '@chat/protocol';

export { gravatarUrl };

/**
 * A user as the API shows it. With `clientGravatar` the client computes
 * gravatar URLs itself, so `avatar_url` is null for users without an upload
 * (people without an uploaded avatar).
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
    avatar_url: user.avatar_url ?? (clientGravatar ? null : gravatarUrl(user.email, user.avatar_version)),
    avatar_version: user.avatar_version,
    // As the original: only when asked for, and never for bots, which cannot have custom profile fields.
    ...(withProfileData && !user.is_bot ? { profile_data: user.profile_data ?? {} } : {}),
  };
}
