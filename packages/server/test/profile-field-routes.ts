import type { ChatClient } from '@chat/testkit';
import { missing, NOTHING_BAD, onMade, type LadderCase, type LadderSection } from './ladder.js';

const made = { doomed: 0, kept: 0 };
const LOCK = 'profile fields';

async function prepare(client: ChatClient): Promise<void> {
  const add = async (name: string) =>
    (await client.post<{ id: number }>('/realm/profile_fields', { name, field_type: 1 })).body.id;
  made.doomed = await add('Ladder doomed');
  made.kept = await add('Ladder kept');
}

/** The route ladder's cases (routes.test.ts) for custom profile fields; those that change the list take turns. */
const cases: LadderCase[] = [
  { method: 'GET', path: '/realm/profile_fields', auth: true, valid: {}, bad: NOTHING_BAD },
  {
    method: 'POST',
    path: '/realm/profile_fields',
    auth: true,
    valid: { name: 'Ladder field', field_type: 1 },
    lock: LOCK,
    bad: { params: { name: 'Ladder bad', field_type: 'one' }, name: 'field_type' },
  },
  {
    method: 'PATCH',
    path: '/realm/profile_fields',
    auth: true,
    valid: { order: '[]' },
    // Every field there is at the time, reversed.
    fresh: async (client) => {
      const { custom_fields } = (await client.get<{ custom_fields: { id: number }[] }>('/realm/profile_fields')).body;
      return { order: JSON.stringify(custom_fields.map((f) => f.id).reverse()) };
    },
    lock: LOCK,
    bad: { params: { order: '["one"]' }, name: 'order' },
  },
  onMade(
    'PATCH',
    '/realm/profile_fields/{field_id}',
    () => `/realm/profile_fields/${made.kept}`,
    { hint: 'kept' },
    {
      path: '/realm/profile_fields/one',
      params: {},
      name: 'field_id',
    },
  ),
  {
    ...onMade(
      'DELETE',
      '/realm/profile_fields/{field_id}',
      () => `/realm/profile_fields/${made.doomed}`,
      {},
      {
        path: '/realm/profile_fields/one',
        params: {},
        name: 'field_id',
      },
    ),
    lock: LOCK,
  },
  {
    method: 'PATCH',
    path: '/users/me/profile_data',
    auth: true,
    valid: { data: '[]' },
    fresh: async () => ({ data: JSON.stringify([{ id: made.kept, value: 'ladder' }]) }),
    bad: missing('data'),
  },
  {
    method: 'DELETE',
    path: '/users/me/profile_data',
    auth: true,
    valid: { data: '[]' },
    fresh: async () => ({ data: JSON.stringify([made.kept]) }),
    bad: missing('data'),
  },
];

export const profileFieldLadder: LadderSection = { prepare, cases };
