import test from 'ava';
import {
  defaultStreamsEvent,
  folderAdded,
  foldersReordered,
  folderUpdated,
  invitesChanged,
  mutedTopicsEvent,
  realmEmojiEvent,
  realmPlaygroundsEvent,
  reminderRemoved,
  remindersAdded,
  scheduledAdded,
  scheduledRemoved,
  scheduledUpdated,
  settingEvents,
  typingDirect,
  typingEditMessage,
  typingInChannel,
  updateMessageEvent,
  userDefaultsUpdated,
  userStatusEvent,
  type QueueEvent,
} from '@chat/protocol';
import { checkEvent } from '@chat/testkit';

/**
 * The kinds that reach clients as their constructors build them (with the
 * queue's `id`), each checked against the reference's event schema: a field
 * misnamed in a constructor fails here before any client sees it.
 */
const someone = { user_id: 10, email: 'hamlet@zulip.com' };
const folder = {
  id: 1,
  name: 'Frontend',
  description: '',
  rendered_description: '',
  order: 0,
  date_created: 1_700_000_000,
  creator_id: 10,
  is_archived: false,
};
const scheduledMessage = {
  scheduled_message_id: 3,
  type: 'stream' as const,
  to: 7,
  topic: 'later',
  content: 'hi',
  rendered_content: '<p>hi</p>',
  scheduled_delivery_timestamp: 1_800_000_000,
  failed: false,
};
const reminder = {
  reminder_id: 4,
  type: 'private' as const,
  to: [10],
  reminder_target_message_id: 42,
  content: 'look',
  rendered_content: '<p>look</p>',
  scheduled_delivery_timestamp: 1_800_000_000,
  failed: false,
};
const emoji = {
  id: '1',
  name: 'green_tick',
  source_url: '/e/1.png',
  still_url: null,
  deactivated: false,
  author_id: 10,
};

const samples: QueueEvent[] = [
  updateMessageEvent({
    user_id: 10,
    edit_timestamp: 1_700_000_000,
    message_id: 5,
    message_ids: [5],
    flags: ['read'],
    rendering_only: false,
    stream_id: 7,
    stream_name: 'Verona',
    orig_content: 'a',
    orig_rendered_content: '<p>a</p>',
    content: 'b',
    rendered_content: '<p>b</p>',
    is_me_message: false,
  }),
  typingDirect('start', someone, [someone]),
  typingInChannel('stop', someone, 7, 'lunch'),
  typingEditMessage('start', 10, 5, { type: 'channel', channel_id: 7, topic: 'lunch' }),
  typingEditMessage('stop', 10, 5, { type: 'direct', user_ids: [10, 11] }),
  scheduledAdded([scheduledMessage]),
  scheduledUpdated(scheduledMessage),
  scheduledRemoved(3),
  remindersAdded([reminder]),
  reminderRemoved(4),
  ...settingEvents('hamlet@zulip.com', 'left_side_userlist', true),
  ...settingEvents('hamlet@zulip.com', 'enable_sounds', false),
  mutedTopicsEvent([['Verona', 'lunch', 1_700_000_000]]),
  userStatusEvent(10, { away: true, status_text: 'out' }),
  invitesChanged(),
  realmEmojiEvent({ '1': emoji }),
  realmPlaygroundsEvent([
    { id: 1, name: 'Python', pygments_language: 'python', url_template: 'https://p.example/{code}' },
  ]),
  defaultStreamsEvent([7, 8]),
  folderAdded(folder),
  folderUpdated(1, { name: 'Backend' }),
  foldersReordered([1]),
  userDefaultsUpdated('left_side_userlist', true),
];

for (const [i, event] of samples.entries()) {
  const name = `${event.type}${'op' in event ? ` ${String(event.op)}` : ''}`;
  test(`${i}: ${name} as built matches the reference`, (t) => {
    t.deepEqual(checkEvent({ ...event, id: 0 }).errors, []);
  });
}
