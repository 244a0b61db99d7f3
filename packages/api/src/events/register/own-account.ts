import {
  inGroupSetting,
  isAdministrator,
  isGuest,
  isModeratorOrAbove,
  isOwner,
  mayInviteUsers,
  type Principal,
  type RealmSettings,
  type UserProfile,
} from '@chat/protocol';
import { gravatarUrl } from '../../users/json.js';

/**
 * What `realm_user` tells a client about its own account and rights, as
 * the original: its own avatar always as a URL (never left to the client),
 * and the permissions its role and groups give it.
 */
export function ownAccountSection(principal: Principal, me: UserProfile, settings: RealmSettings) {
  const may = (setting: RealmSettings['can_add_subscribers_group']) => inGroupSetting(setting, principal);
  const gravatar = gravatarUrl(me.delivery_email, me.avatar_version);
  return {
    avatar_source: me.avatar_url ? 'U' : 'G',
    avatar_url: me.avatar_url ?? gravatar,
    // No resizing here: an uploaded avatar is served as uploaded, at both sizes.
    avatar_url_medium: me.avatar_url ?? `${gravatar}&s=500`,
    can_create_streams: may(settings.can_create_public_channel_group) || may(settings.can_create_private_channel_group),
    can_create_public_streams: may(settings.can_create_public_channel_group),
    can_create_private_streams: may(settings.can_create_private_channel_group),
    can_create_web_public_streams: may(settings.can_create_web_public_channel_group),
    can_subscribe_other_users: may(settings.can_add_subscribers_group),
    can_invite_others_to_realm: mayInviteUsers(principal, settings.can_invite_users_group),
    is_admin: isAdministrator(me),
    is_owner: isOwner(me),
    is_moderator: isModeratorOrAbove(me) && !isAdministrator(me),
    is_guest: isGuest(me),
    user_id: me.user_id,
    email: me.email,
    delivery_email: me.delivery_email,
    full_name: me.full_name,
    // The original's system bots live in an internal realm; here they are accounts of the realm.
    cross_realm_bots: [],
  };
}
