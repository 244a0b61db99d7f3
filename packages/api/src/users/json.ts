import {
  gravatarUrl,
  isAdministrator,
  isGuest,
  isOwner,
  seesAddress,
  type Role,
  type UserProfile,
} from '@chat/protocol';

export { gravatarUrl };

/** Who looks at a user (null: a spectator); decides whether `delivery_email` is the address or null. */
export type Viewer = { user_id: number; role: Role } | null;

/**
 * A user as `viewer` sees it: `email` is the API address (a placeholder for
 * users who hide theirs), `delivery_email` the real one where the user's
 * `email_address_visibility` admits the viewer, else null. With
 * `clientGravatar` the client computes gravatar URLs itself, so `avatar_url`
 * is null for users without an upload.
 */
export function renderUser(user: UserProfile, viewer: Viewer, clientGravatar: boolean, withProfileData = true) {
  return {
    user_id: user.user_id,
    delivery_email: seesAddress(viewer, user) ? user.delivery_email : null,
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
    // The gravatar is the real address's, as the original's; the address itself stays out of the answer.
    // A client computes a gravatar from `email`, which it cannot do from a placeholder: then the server does.
    avatar_url:
      user.avatar_url ??
      (clientGravatar && user.email === user.delivery_email
        ? null
        : gravatarUrl(user.delivery_email, user.avatar_version)),
    avatar_version: user.avatar_version,
    // As the original: only when asked for, and never for bots, which cannot have custom profile fields.
    ...(withProfileData && !user.is_bot ? { profile_data: user.profile_data ?? {} } : {}),
  };
}
