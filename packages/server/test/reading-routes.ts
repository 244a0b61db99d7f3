import type { ChatClient, Params } from '@chat/testkit';
import { missing, NOTHING_BAD as none, onMade, type LadderCase, type LadderSection } from './ladder.js';

/**
 * The route ladder's cases (routes.test.ts) for reading and marking, and for
 * the caller's own muting, alert words, scheduled messages, reminders and
 * account. `prepare` makes what they act on; parameters that name it are
 * filled in then.
 */
const made = { channel: 0, me: 0, message: 0, scheduledChanged: 0, scheduledDoomed: 0, reminderDoomed: 0 };
const muted = { toMute: 0, toUnmute: 0 };
const later = () => Math.floor(Date.now() / 1000) + 3600;
/** The account that deletes itself in the unknown-parameter step, so the ladder's administrator stays. */
let leaver: ChatClient | undefined;

const channelRead: Params = {};
const topicRead: Params = { topic_name: 'ladder reading' };
const mutedTopic: Params = { topic: 'ladder reading', op: 'add' };
const scheduled: Params = { type: 'stream', topic: 'ladder reading', content: 'later' };
const reminder: Params = {};

async function prepare(client: ChatClient): Promise<void> {
  const me = await client.get<{ user_id: number }>('/users/me');
  made.me = me.body.user_id;
  const denmark = await client.get<{ stream_id: number }>('/get_stream_id', { stream: 'Denmark' });
  made.channel = denmark.body.stream_id;
  const sent = await client.post<{ id: number }>('/messages', {
    type: 'stream',
    to: 'Denmark',
    topic: 'ladder reading',
    content: 'to read, report and remind',
  });
  made.message = sent.body.id;
  await client.patch('/realm', { moderation_request_channel_id: made.channel });

  const users = await client.get<{ members: Array<{ user_id: number; email: string }> }>('/users');
  const idOf = (email: string) => users.body.members.find((u) => u.email === email)!.user_id;
  muted.toMute = idOf('hamlet@zulip.com');
  muted.toUnmute = idOf('othello@zulip.com');
  await client.post(`/users/me/muted_users/${muted.toUnmute}`);

  Object.assign(channelRead, { stream_id: made.channel });
  Object.assign(topicRead, { stream_id: made.channel });
  Object.assign(mutedTopic, { stream_id: made.channel });
  Object.assign(scheduled, { to: made.channel, scheduled_delivery_timestamp: later() });
  Object.assign(reminder, { message_id: made.message, scheduled_delivery_timestamp: later() });
  for (const key of ['scheduledChanged', 'scheduledDoomed'] as const) {
    const one = await client.post<{ scheduled_message_id: number }>('/scheduled_messages', scheduled);
    made[key] = one.body.scheduled_message_id;
  }
  const remind = await client.post<{ reminder_id: number }>('/reminders', reminder);
  made.reminderDoomed = remind.body.reminder_id;

  const email = `ladder-leaver-${Date.now()}@zulip.com`;
  const password = 'ladder-leaver-password-1';
  await client.post('/users', { email, password, full_name: 'Ladder Leaver' });
  const key = await client.as(undefined).post<{ api_key: string }>('/fetch_api_key', { username: email, password });
  leaver = client.as({ email, apiKey: key.body.api_key });
}

const onMessage = (method: LadderCase['method'], suffix: string, valid: Params, bad: LadderCase['bad']) =>
  onMade(method, `/messages/{message_id}${suffix}`, () => `/messages/${made.message}${suffix}`, valid, bad);

export const readingLadder: LadderSection = {
  prepare,
  cases: [
    { method: 'POST', path: '/mark_all_as_read', auth: true, valid: {}, bad: none },
    { method: 'POST', path: '/mark_stream_as_read', auth: true, valid: channelRead, bad: missing('stream_id') },
    {
      method: 'POST',
      path: '/mark_topic_as_read',
      auth: true,
      valid: topicRead,
      bad: missing('topic_name', { stream_id: 1 }),
    },
    {
      method: 'POST',
      path: '/messages/flags/narrow',
      auth: true,
      valid: { anchor: 'newest', num_before: 1, num_after: 0, narrow: '[]', op: 'add', flag: 'read' },
      bad: missing('op', { anchor: 'newest', num_before: 1, num_after: 0, narrow: '[]', flag: 'read' }),
    },
    onMessage('GET', '/read_receipts', {}, { path: '/messages/x/read_receipts', params: {}, name: 'message_id' }),
    onMessage('POST', '/report', { report_type: 'spam' }, { params: { report_type: 'rude' }, name: 'report_type' }),
    onMessage('POST', '/typing', { op: 'start' }, { params: { op: 'maybe' }, name: 'op' }),
    onMade(
      'GET',
      '/streams/{stream_id}/email_address',
      () => `/streams/${made.channel}/email_address`,
      {},
      { path: '/streams/x/email_address', params: {}, name: 'stream_id' },
    ),
    onMade(
      'GET',
      '/users/{user_id}/subscriptions/{stream_id}',
      () => `/users/${made.me}/subscriptions/${made.channel}`,
      {},
      { path: '/users/x/subscriptions/1', params: {}, name: 'user_id' },
    ),
    {
      method: 'PATCH',
      path: '/users/me/subscriptions/muted_topics',
      auth: true,
      valid: mutedTopic,
      bad: { params: { stream_id: 1, topic: 'ladder reading', op: 'maybe' }, name: 'op' },
    },
    onMade(
      'POST',
      '/users/me/muted_users/{muted_user_id}',
      () => `/users/me/muted_users/${muted.toMute}`,
      {},
      { path: '/users/me/muted_users/x', params: {}, name: 'muted_user_id' },
    ),
    onMade(
      'DELETE',
      '/users/me/muted_users/{muted_user_id}',
      () => `/users/me/muted_users/${muted.toUnmute}`,
      {},
      { path: '/users/me/muted_users/x', params: {}, name: 'muted_user_id' },
    ),
    { method: 'GET', path: '/users/me/alert_words', auth: true, valid: {}, bad: none },
    ...(['POST', 'DELETE'] as const).map((method): LadderCase => ({
      method,
      path: '/users/me/alert_words',
      auth: true,
      valid: { alert_words: '["ladder"]' },
      bad: missing('alert_words'),
    })),
    { method: 'GET', path: '/scheduled_messages', auth: true, valid: {}, bad: none },
    {
      method: 'POST',
      path: '/scheduled_messages',
      auth: true,
      valid: scheduled,
      bad: missing('scheduled_delivery_timestamp', { type: 'stream', to: 1, topic: 't', content: 'c' }),
    },
    onMade(
      'PATCH',
      '/scheduled_messages/{scheduled_message_id}',
      () => `/scheduled_messages/${made.scheduledChanged}`,
      { content: 'later still' },
      { path: '/scheduled_messages/x', params: {}, name: 'scheduled_message_id' },
    ),
    onMade(
      'DELETE',
      '/scheduled_messages/{scheduled_message_id}',
      () => `/scheduled_messages/${made.scheduledDoomed}`,
      {},
      { path: '/scheduled_messages/x', params: {}, name: 'scheduled_message_id' },
    ),
    { method: 'GET', path: '/reminders', auth: true, valid: {}, bad: none },
    {
      method: 'POST',
      path: '/reminders',
      auth: true,
      valid: reminder,
      bad: missing('message_id', { scheduled_delivery_timestamp: 1 }),
    },
    onMade(
      'DELETE',
      '/reminders/{reminder_id}',
      () => `/reminders/${made.reminderDoomed}`,
      {},
      { path: '/reminders/x', params: {}, name: 'reminder_id' },
    ),
    { method: 'DELETE', path: '/users/me', auth: true, valid: {}, bad: none, as: () => leaver! },
  ],
};
