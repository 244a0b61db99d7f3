import { expectOk, type Fixtures } from './matrix-fixtures.js';
import { authenticated, badRequest, NO_GUESTS, OK, type Operation } from './matrix-model.js';

/**
 * Custom emoji (the original's upload_emoji and delete_emoji): everyone
 * lists them; adding takes `can_add_custom_emoji_group` (members by
 * default, never guests); removing takes an administrator or the emoji's
 * author. Each caller adds or removes one of its own name.
 */
export const PNG = { name: 'emoji.png', type: 'image/png', data: Buffer.from('not decoded, only stored') };

const nameFor = (fx: Fixtures, prefix: string) => fx.unique(prefix).replace(' ', '_');

/** An emoji the member added, for one caller to try to remove. */
async function membersEmoji(fx: Fixtures): Promise<string> {
  const name = nameFor(fx, 'matrix_member');
  await expectOk(fx.callers.member.client.upload(`/realm/emoji/${name}`, [PNG]));
  return name;
}

export const emojiCases: Operation[] = [
  {
    method: 'GET',
    template: '/realm/emoji',
    request: () => ({ path: '/realm/emoji' }),
    expect: authenticated({ everyone: OK }),
  },
  {
    method: 'POST',
    template: '/realm/emoji/{emoji_name}',
    request: (fx) => ({ path: `/realm/emoji/${nameFor(fx, 'matrix_add')}`, files: true, file: PNG }),
    expect: authenticated({ everyone: OK, guest: NO_GUESTS }),
  },
  {
    method: 'DELETE',
    template: '/realm/emoji/{emoji_name}',
    request: async (fx) => ({ path: `/realm/emoji/${await membersEmoji(fx)}` }),
    expect: authenticated({
      everyone: badRequest('Must be an organization administrator or emoji author'),
      member: OK,
      administrator: OK,
      owner: OK,
      // Another realm has no emoji of this name.
      otherRealm: { status: 404, code: 'BAD_REQUEST' },
    }),
  },
];
