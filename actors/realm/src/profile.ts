import { gravatarUrl, uploadedAvatarUrl, type Principal, type UserProfile } from '@chat/protocol';
import { groupsContaining } from './groups/model.js';
import type { Account, RealmState } from './state.js';

/** The address others see: the placeholder while the account hides its real one (accounts/email-visibility.ts). */
export const apiEmailOf = (account: Account): string => account.apiEmail ?? account.email;

/** For a user who hides the address: the gravatar of the real one, which clients cannot compute from the API address. */
export const hiddenGravatar = (account: Account): { gravatar_url?: string } =>
  account.apiEmail === undefined ? {} : { gravatar_url: gravatarUrl(account.email, 1) };

export function toProfile(account: Account): UserProfile {
  return {
    user_id: account.id,
    email: apiEmailOf(account),
    delivery_email: account.email,
    ...(account.emailVisibility !== undefined && { email_address_visibility: account.emailVisibility }),
    full_name: account.fullName,
    date_joined: new Date(account.dateJoined * 1000).toISOString(),
    is_active: account.isActive,
    role: account.role,
    is_bot: account.botType !== null,
    bot_type: account.botType,
    bot_owner_id: account.botOwnerId,
    timezone: account.timezone,
    avatar_version: account.avatarVersion,
    ...(account.avatarFile ? { avatar_url: uploadedAvatarUrl(account.avatarFile, account.avatarVersion) } : {}),
    ...(account.profileData && Object.keys(account.profileData).length ? { profile_data: account.profileData } : {}),
  };
}

export function toPrincipal(state: RealmState, account: Account): Principal {
  return {
    realm: state.stringId,
    user_id: account.id,
    email: account.email,
    ...(account.apiEmail !== undefined && { api_email: account.apiEmail, ...hiddenGravatar(account) }),
    role: account.role,
    is_bot: account.botType !== null,
    bot_type: account.botType,
    full_name: account.fullName,
    groups: groupsContaining(state, account),
    can_create_users: account.canCreateUsers === true,
    ...(state.linkifiers?.length ? { linkifiers_version: state.linkifiersVersion ?? '' } : {}),
  };
}
