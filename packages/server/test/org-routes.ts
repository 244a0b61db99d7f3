import type { ChatClient } from '@chat/testkit';
import { missing, NOTHING_BAD, onMade, type LadderCase, type LadderSection } from './ladder.js';
import { PNG } from './permission-cases-emoji.js';

const made = { playground: 0 };

async function prepare(client: ChatClient): Promise<void> {
  const params = { name: 'Ladder doomed', pygments_language: 'Rust', url_template: 'https://r.example/{code}' };
  made.playground = (await client.post<{ id: number }>('/realm/playgrounds', params)).body.id;
  await client.upload('/realm/emoji/ladder_doomed', [PNG]);
}

/** The route ladder's cases (routes.test.ts) for organization settings and managing other users. */
const cases: LadderCase[] = [
  {
    method: 'POST',
    path: '/realm/playgrounds',
    auth: true,
    valid: { name: 'Ladder playground', pygments_language: 'Python', url_template: 'https://p.example/{code}' },
    bad: missing('url_template', { name: 'Ladder playground', pygments_language: 'Python' }),
  },
  onMade(
    'DELETE',
    '/realm/playgrounds/{playground_id}',
    () => `/realm/playgrounds/${made.playground}`,
    {},
    {
      path: '/realm/playgrounds/one',
      params: {},
      name: 'playground_id',
    },
  ),
  {
    method: 'PATCH',
    path: '/realm/user_settings_defaults',
    auth: true,
    valid: { enter_sends: false },
    bad: { params: { color_scheme: '9' }, name: 'color_scheme' },
  },
  ...(['POST', 'DELETE'] as const).map((method): LadderCase => ({
    method,
    path: '/default_streams',
    auth: true,
    valid: { stream_id: 3 },
    bad: missing('stream_id'),
  })),
  {
    method: 'PATCH',
    path: '/realm',
    auth: true,
    valid: { description: 'climbing the ladder' },
    bad: { params: { allow_message_editing: 'maybe' }, name: 'allow_message_editing' },
  },
  {
    method: 'GET',
    path: '/users/prospero@zulip.com',
    template: '/users/{email}',
    auth: true,
    valid: {},
    bad: { params: { client_gravatar: 'maybe' }, name: 'client_gravatar' },
  },
  {
    method: 'PATCH',
    path: '/users/prospero@zulip.com',
    template: '/users/{email}',
    auth: true,
    valid: { full_name: 'Prospero' },
    bad: { params: { role: 'king' }, name: 'role' },
  },
  {
    method: 'PATCH',
    path: '/users/14',
    template: '/users/{user_id}',
    auth: true,
    valid: { full_name: 'Prospero' },
    bad: { path: '/users/fourteen', params: {}, name: 'user_id' },
  },
  {
    method: 'POST',
    path: '/users/14/status',
    template: '/users/{user_id}/status',
    auth: true,
    valid: { status_text: 'on the ladder' },
    bad: { path: '/users/fourteen/status', params: {}, name: 'user_id' },
  },
  { method: 'GET', path: '/realm/emoji', auth: true, valid: {}, bad: NOTHING_BAD },
  {
    method: 'POST',
    path: '/realm/emoji/ladder_emoji',
    template: '/realm/emoji/{emoji_name}',
    auth: true,
    files: true,
    file: PNG,
    valid: {},
    bad: NOTHING_BAD,
  },
  {
    method: 'DELETE',
    path: '/realm/emoji/ladder_doomed',
    template: '/realm/emoji/{emoji_name}',
    auth: true,
    valid: {},
    bad: NOTHING_BAD,
  },
];

export const orgLadder: LadderSection = { prepare, cases };
