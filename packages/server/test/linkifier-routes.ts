import type { ChatClient } from '@chat/testkit';
import { missing, NOTHING_BAD, onMade, type LadderCase, type LadderSection } from './ladder.js';

const made = { doomed: 0, kept: 0 };
const LOCK = 'linkifiers';

async function prepare(client: ChatClient): Promise<void> {
  const add = async (pattern: string) =>
    (await client.post<{ id: number }>('/realm/filters', { pattern, url_template: 'https://l.example/{id}' })).body.id;
  made.doomed = await add('doomed-(?P<id>[0-9]+)');
  made.kept = await add('kept-(?P<id>[0-9]+)');
}

/** The route ladder's cases (routes.test.ts) for linkifiers (those that change the list take turns) and the welcome bot's test. */
const cases: LadderCase[] = [
  {
    method: 'POST',
    path: '/realm/test_welcome_bot_custom_message',
    auth: true,
    valid: { welcome_message_custom_text: 'Ladder welcome' },
    bad: missing('welcome_message_custom_text'),
  },
  { method: 'GET', path: '/realm/linkifiers', auth: true, valid: {}, bad: NOTHING_BAD },
  {
    method: 'PATCH',
    path: '/realm/linkifiers',
    auth: true,
    valid: { ordered_linkifier_ids: '[]' },
    // Every linkifier there is at the time, reversed.
    fresh: async (client) => {
      const { linkifiers } = (await client.get<{ linkifiers: { id: number }[] }>('/realm/linkifiers')).body;
      return { ordered_linkifier_ids: JSON.stringify(linkifiers.map((l) => l.id).reverse()) };
    },
    lock: LOCK,
    bad: { params: { ordered_linkifier_ids: '["one"]' }, name: 'ordered_linkifier_ids' },
  },
  {
    method: 'POST',
    path: '/realm/filters',
    auth: true,
    valid: { pattern: 'ladder-(?P<id>[0-9]+)', url_template: 'https://l.example/{id}' },
    lock: LOCK,
    bad: missing('url_template', { pattern: 'ladder-(?P<id>[0-9]+)' }),
  },
  {
    ...onMade(
      'PATCH',
      '/realm/filters/{filter_id}',
      () => `/realm/filters/${made.kept}`,
      { pattern: 'still-(?P<id>[0-9]+)', url_template: 'https://l.example/{id}' },
      missing('url_template', { pattern: 'still-(?P<id>[0-9]+)' }),
    ),
  },
  {
    ...onMade(
      'DELETE',
      '/realm/filters/{filter_id}',
      () => `/realm/filters/${made.doomed}`,
      {},
      {
        path: '/realm/filters/one',
        params: {},
        name: 'filter_id',
      },
    ),
    lock: LOCK,
  },
];

export const linkifierLadder: LadderSection = { prepare, cases };
