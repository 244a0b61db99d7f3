import test from 'ava';
import { checkEvent } from '@chat/testkit';
import {
  alertWordsEvent,
  customProfileFields,
  heartbeatEvent,
  mutedUsersEvent,
  pushDeviceChanged,
  reactionEvent,
  realmExportChanged,
  realmExportConsent,
  realmLinkifiers,
  realmUpdated,
  realmUpdatedDict,
  snippetSaved,
  userTopicEvent,
  viewAdded,
  defaultStreamsEvent,
  deletedInChannel,
  displaySettingUpdated,
  draftRemoved,
  flagsUpdated,
  folderAdded,
  folderUpdated,
  foldersReordered,
  invitesChanged,
  mutedTopicsEvent,
  notificationSettingUpdated,
  peerEvent,
  realmEmojiEvent,
  realmPlaygroundsEvent,
  reminderRemoved,
  remindersAdded,
  scheduledAdded,
  scheduledRemoved,
  scheduledUpdated,
  settingEvents,
  streamDeleteEvent,
  typingDirect,
  typingEditMessage,
  typingInChannel,
  updateMessageEvent,
  userDefaultsUpdated,
  userSettingUpdated,
  userStatusEvent,
  type ClientEvent,
  type ScheduledMessageJson,
} from '../src/index.js';

/**
 * One sample of each constructor's output, checked against the reference's
 * `GET /events` event schemas (with the `id` a queue adds). Keyed by kind, so a
 * kind added to the union without a sample here does not compile, unless it is
 * listed in RESHAPED (the edge renders those, and the HTTP event tests check them).
 */
const RESHAPED = ['message', 'presence', 'realm_user', 'realm_bot', 'user_group', 'stream', 'subscription'] as const;

const me = { user_id: 8, email: 'user8@example.com' };
const scheduled: ScheduledMessageJson = {
  scheduled_message_id: 3,
  type: 'stream',
  to: 5,
  topic: 'lunch',
  content: 'at noon',
  rendered_content: '<p>at noon</p>',
  scheduled_delivery_timestamp: 1_800_000_000,
  failed: false,
};
const folder = {
  id: 1,
  name: 'Frontend',
  description: '',
  rendered_description: '',
  order: 0,
  date_created: 1_700_000_000,
  creator_id: 8,
  is_archived: false,
};
const emoji = {
  id: '4',
  name: 'green_tick',
  source_url: '/e/4.png',
  still_url: null,
  deactivated: false,
  author_id: 8,
};

const samples: Record<Exclude<ClientEvent['type'], (typeof RESHAPED)[number]>, ClientEvent[]> = {
  update_message: [
    updateMessageEvent({
      user_id: 8,
      edit_timestamp: 1_700_000_100,
      message_id: 30,
      message_ids: [30],
      flags: ['read'],
      rendering_only: false,
      stream_id: 5,
      stream_name: 'general',
      orig_content: 'a',
      orig_rendered_content: '<p>a</p>',
      content: 'b',
      rendered_content: '<p>b</p>',
      is_me_message: false,
    }),
    updateMessageEvent({
      user_id: 8,
      edit_timestamp: 1_700_000_100,
      message_id: 30,
      message_ids: [30, 31],
      flags: [],
      rendering_only: false,
      stream_id: 5,
      stream_name: 'general',
      new_stream_id: 6,
      propagate_mode: 'change_all',
      orig_subject: 'old',
      subject: 'new',
      topic_links: [],
    }),
  ],
  typing: [typingDirect('start', me, [me]), typingInChannel('stop', me, 5, 'lunch')],
  typing_edit_message: [
    typingEditMessage('start', 8, 30, { type: 'direct', user_ids: [8, 9] }),
    typingEditMessage('stop', 8, 30, { type: 'channel', channel_id: 5, topic: 'lunch' }),
  ],
  user_status: [userStatusEvent(8, { away: true, status_text: 'out', emoji_name: 'car', emoji_code: '1f697' })],
  scheduled_messages: [
    scheduledAdded([scheduled]),
    scheduledUpdated({ ...scheduled, failed: true }),
    scheduledRemoved(3),
  ],
  reminders: [
    remindersAdded([
      {
        reminder_id: 4,
        type: 'private',
        to: [8],
        reminder_target_message_id: 30,
        content: 'look',
        rendered_content: '<p>look</p>',
        scheduled_delivery_timestamp: 1_800_000_000,
        failed: false,
      },
    ]),
    reminderRemoved(4),
  ],
  user_settings: [userSettingUpdated('default_language', 'de', 'Deutsch'), userSettingUpdated('enter_sends', true)],
  update_display_settings: [displaySettingUpdated(me.email, 'default_language', 'de', 'Deutsch')],
  update_global_notifications: [notificationSettingUpdated(me.email, 'enable_sounds', false)],
  invites_changed: [invitesChanged()],
  default_streams: [defaultStreamsEvent([2, 3])],
  channel_folder: [folderAdded(folder), folderUpdated(1, { name: 'Backend' }), foldersReordered([2, 1])],
  realm_emoji: [realmEmojiEvent({ '4': emoji })],
  realm_playgrounds: [
    realmPlaygroundsEvent([
      { id: 1, name: 'Python', pygments_language: 'Python', url_template: 'https://p.example/{code}' },
    ]),
  ],
  realm_user_settings_defaults: [userDefaultsUpdated('enter_sends', true)],
  muted_topics: [mutedTopicsEvent([['general', 'lunch', 1_700_000_000]])],
  drafts: [draftRemoved(2)],
  alert_words: [alertWordsEvent(['lunch'])],
  update_message_flags: [flagsUpdated('add', 'starred', [30])],
  delete_message: [deletedInChannel([30], 5, 'lunch')],
  submessage: [
    {
      type: 'submessage',
      msg_type: 'widget',
      message_id: 30,
      submessage_id: 30_000_001,
      sender_id: 8,
      content: '{"type":"vote","key":"8,1","vote":1}',
    },
  ],
  reaction: [
    reactionEvent(
      'add',
      30,
      { emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji', user_id: 8 },
      {
        user_id: 8,
        email: me.email,
        full_name: 'Iago',
      },
    ),
  ],
  push_device: [pushDeviceChanged(7, 'active', null)],
  saved_snippets: [snippetSaved('add', { id: 1, title: 'Hi', content: 'Hello', date_created: 1_700_000_000 })],
  navigation_view: [viewAdded({ fragment: 'narrow/is/starred', is_pinned: true, name: null })],
  muted_users: [mutedUsersEvent([{ id: 9, timestamp: 1_700_000_000 }])],
  user_topic: [userTopicEvent(5, 'lunch', 1, 1_700_000_000)],
  realm: [realmUpdated('name', 'Zulip Dev'), realmUpdatedDict({ message_content_edit_limit_seconds: 600 })],
  realm_linkifiers: [realmLinkifiers([{ id: 1, pattern: '#(?P<id>[0-9]+)', url_template: 'https://g.example/{id}' }])],
  realm_export: [
    realmExportChanged([
      {
        id: 1,
        acting_user_id: 8,
        export_time: 1_700_000_000,
        deleted_timestamp: null,
        failed_timestamp: null,
        export_url: null,
        pending: true,
        export_type: 1,
      },
    ]),
  ],
  realm_export_consent: [realmExportConsent(8, true)],
  custom_profile_fields: [
    customProfileFields([
      { id: 1, type: 1, order: 0, name: 'Phone', hint: '', field_data: '', required: false, editable_by_user: true },
    ]),
  ],
  heartbeat: [heartbeatEvent()],
};

for (const [kind, events] of Object.entries(samples)) {
  test(`${kind}: the constructors build the reference's shape`, (t) => {
    for (const event of events) {
      const { ok, errors } = checkEvent({ id: 0, ...event });
      t.true(ok, `${JSON.stringify(event)}\n  ${errors.join('\n  ')}`);
    }
  });
}

test('peer_add, the edge-made stream delete, and the events one changed setting raises (with their legacy copies)', (t) => {
  const settings = [
    ...settingEvents(me.email, 'left_side_userlist', true),
    ...settingEvents(me.email, 'enable_sounds', false),
  ];
  t.deepEqual(
    settings.map((e) => e.type),
    ['user_settings', 'update_display_settings', 'user_settings', 'update_global_notifications'],
  );
  for (const event of [peerEvent('peer_add', 5, [9]), streamDeleteEvent(5), ...settings]) {
    const { ok, errors } = checkEvent({ id: 0, ...event });
    t.true(ok, `${JSON.stringify(event)}\n  ${errors.join('\n  ')}`);
  }
});
