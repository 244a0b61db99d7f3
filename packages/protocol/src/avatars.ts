import { createHash } from 'node:crypto';

/** The avatar of a user who uploaded none: an identicon keyed by address. */
export function gravatarUrl(email: string, version: number): string {
  const hash = createHash('md5').update(email.toLowerCase()).digest('hex');
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${version}`;
}

/** An uploaded avatar's name: `<realm id>/<random>.<extension>`. */
export const avatarPath = (realmId: number, name: string) => `${realmId}/${name}`;

/** Where an uploaded avatar is served (public, as the original's `/user_avatars/`). */
export const uploadedAvatarUrl = (path: string, version: number) => `/user_avatars/${path}?version=${version}`;

/** The file port's key of an uploaded avatar. */
export const avatarFileKey = (path: string) => `avatars/${path}`;
