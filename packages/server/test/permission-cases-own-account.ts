import { expectOk } from './matrix-fixtures.js';
import { authenticated, OK, refused, type Operation } from './matrix-model.js';

/**
 * DELETE /users/me: every account may leave, except the only owner of its
 * organization (the development realm's desdemona, the other realm's
 * owner): CANNOT_DEACTIVATE_LAST_USER (reference, deactivate-own-user
 * 400). Whoever left is reactivated by the owner after the call, so the
 * callers stay as the other rows need them.
 */
const LAST_OWNER = refused('CANNOT_DEACTIVATE_LAST_USER', 'Cannot deactivate the only organization owner', {
  entity: 'organization owner',
  is_last_owner: true,
});

/** An avatar upload: the first bytes of a PNG are all the server reads of it. */
export const AVATAR_PNG = {
  name: 'avatar.png',
  type: 'image/png',
  data: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('avatar bytes')]),
};

export const ownAccountCases: Operation[] = [
  // Anyone signed in may change their own avatar (the original has no human-only check on it).
  {
    method: 'POST',
    template: '/users/me/avatar',
    request: () => ({ path: '/users/me/avatar', files: true, file: AVATAR_PNG }),
    expect: authenticated({ everyone: OK }),
  },
  {
    method: 'DELETE',
    template: '/users/me/avatar',
    request: () => ({ path: '/users/me/avatar' }),
    expect: authenticated({ everyone: OK }),
  },
  {
    method: 'DELETE',
    template: '/users/me',
    request: () => ({ path: '/users/me' }),
    after: async (fx, caller, reply) => {
      if (reply.status === 200) await expectOk(fx.callers.owner.client.post(`/users/${caller.userId}/reactivate`));
    },
    expect: authenticated({ everyone: OK, owner: LAST_OWNER, otherRealm: LAST_OWNER }),
  },
];
