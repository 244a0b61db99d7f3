import type { RenderContext, RenderUser } from '../src/index.js';

const users: RenderUser[] = [
  { id: 10, full_name: 'King Hamlet' },
  { id: 11, full_name: 'Othello, the Moor of Venice' },
  { id: 21, full_name: 'Twin' },
  { id: 22, full_name: 'Twin' },
];

/** A realm with a few users (two sharing a name), a group, two channels and a custom emoji. */
export function realm(extra: Partial<RenderContext> = {}): RenderContext {
  const usersByName = new Map<string, RenderUser[]>();
  for (const user of users) {
    const key = user.full_name.toLowerCase();
    usersByName.set(key, [...(usersByName.get(key) ?? []), user]);
  }
  return {
    usersByName,
    usersById: new Map(users.map((u) => [u.id, u])),
    groupsByName: new Map([['support team', { id: 5, name: 'support team' }]]),
    channelsByName: new Map([
      ['verona', { id: 9, name: 'Verona' }],
      ['design team', { id: 12, name: 'Design team' }],
    ]),
    realmEmoji: new Map([['parrot', { id: '3', source_url: '/user_avatars/2/emoji/images/3.gif' }]]),
    ...extra,
  };
}
