import type { ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { newPerson } from './people.js';
import { next, register, type Body, type Event } from './queues.js';
import { refusal, succeeds } from './replies.js';

/** PATCH /settings: personal settings, their events (modern and legacy) and their errors. */
const test = withServer(['iago'], { heartbeatMs: 400 });

const settingsOf = async (client: ChatClient) =>
  (
    await register(client, {
      fetch_event_types: ['user_settings'],
      client_capabilities: { user_settings_object: true },
    })
  ).snapshot.user_settings as Body;

const CHANGES: Body = {
  twenty_four_hour_time: true,
  color_scheme: 2,
  web_home_view: 'recent_topics',
  emojiset: 'text',
  enable_sounds: false,
  notification_sound: 'ding',
  email_notifications_batching_period_seconds: 300,
  default_language: 'de',
  receives_typing_notifications: false,
  web_font_size_px: 14,
  automatically_follow_topics_policy: 4,
  presence_enabled: false,
  web_navigate_to_sent_message: false,
};

test('PATCH /settings stores each setting; the register snapshot reads them back', async (t) => {
  const { client } = await newPerson(t.context, 'Settings Reader');
  const before = await settingsOf(client);
  for (const [name, value] of Object.entries(CHANGES)) t.not(before[name], value, name);
  const body = await succeeds('PATCH', '/settings', client.patch('/settings', CHANGES));
  t.is(body.ignored_parameters_unsupported, undefined);
  const after = await settingsOf(client);
  t.like(after, CHANGES);
  // What was not sent did not change.
  t.is(after.enter_sends, before.enter_sends);
  t.is(after.high_contrast_mode, before.high_contrast_mode);
});

test('the deprecated aliases change the same settings', async (t) => {
  const { client } = await newPerson(t.context, 'Alias User');
  await succeeds('PATCH', '/settings', client.patch('/settings/display', { high_contrast_mode: true }));
  await succeeds('PATCH', '/settings', client.patch('/settings/notifications', { enable_digest_emails: false }));
  t.like(await settingsOf(client), { high_contrast_mode: true, enable_digest_emails: false });
});

test('changing a setting raises user_settings, and legacy events only for clients without the object', async (t) => {
  const { client, email } = await newPerson(t.context, 'Event Watcher');
  const modern = await register(client, { client_capabilities: { user_settings_object: true } });
  const legacy = await register(client, {});
  await succeeds('PATCH', '/settings', client.patch('/settings', { high_contrast_mode: true, enable_sounds: false }));
  const is = (type: string, field: string, name: string) => (e: Event) => e.type === type && e[field] === name;
  for (const queue of [modern, legacy]) {
    const event = await next(queue, is('user_settings', 'property', 'enable_sounds'));
    t.like(event, { op: 'update', value: false });
    t.like(await next(queue, is('user_settings', 'property', 'high_contrast_mode')), { op: 'update', value: true });
  }
  const display = await next(legacy, is('update_display_settings', 'setting_name', 'high_contrast_mode'));
  t.like(display, { user: email, setting: true });
  const sounds = await next(legacy, is('update_global_notifications', 'notification_name', 'enable_sounds'));
  t.like(sounds, { user: email, setting: false });
  // The modern queue saw both user_settings events, which came after the legacy ones were raised.
  t.false(modern.seen.some((e) => e.type === 'update_display_settings' || e.type === 'update_global_notifications'));
});

test('clients without user_settings_object also read the settings as top-level register fields', async (t) => {
  const { client } = await newPerson(t.context, 'Old Client');
  await succeeds('PATCH', '/settings', client.patch('/settings', { high_contrast_mode: true, enable_sounds: false }));
  const fetch_event_types = ['update_display_settings', 'update_global_notifications'];
  const legacy = (await register(client, { fetch_event_types })).snapshot;
  t.like(legacy, { high_contrast_mode: true, enable_sounds: false, timezone: '' });
  t.true(Array.isArray(legacy.emojiset_choices) && Array.isArray(legacy.available_notification_sounds));
  t.false('user_settings' in legacy);
  const capabilities = { user_settings_object: true };
  const modern = (await register(client, { fetch_event_types, client_capabilities: capabilities })).snapshot;
  t.false('high_contrast_mode' in modern || 'enable_sounds' in modern);
});

test('default_language events name the language; unchanged values raise nothing', async (t) => {
  const { client } = await newPerson(t.context, 'Polyglot');
  const queue = await register(client, { client_capabilities: { user_settings_object: true } });
  await succeeds('PATCH', '/settings', client.patch('/settings', { default_language: 'en', enter_sends: true }));
  await succeeds('PATCH', '/settings', client.patch('/settings', { default_language: 'fr' }));
  const language = await next(queue, (e) => e.type === 'user_settings' && e.property === 'default_language');
  t.like(language, { value: 'fr', language_name: 'French' });
  // 'en' was already the language, so its only event is the later change to French.
  t.is(queue.seen.filter((e) => e.property === 'default_language').length, 1);
  t.true(queue.seen.some((e) => e.property === 'enter_sends' && e.value === true));
});

const INVALID: Array<[Body, string]> = [
  [{ color_scheme: 4 }, 'Invalid color_scheme'],
  [{ web_mark_read_on_scroll_policy: 0 }, 'Invalid web_mark_read_on_scroll_policy'],
  [{ web_channel_default_view: 5 }, 'Invalid web_channel_default_view'],
  [{ demote_inactive_streams: 4 }, 'Invalid demote_inactive_streams'],
  [{ user_list_style: 4 }, 'Invalid user_list_style'],
  [{ web_stream_unreads_count_display_policy: 0 }, 'Invalid web_stream_unreads_count_display_policy'],
  [{ desktop_icon_count_display: 5 }, 'Invalid desktop_icon_count_display'],
  [{ email_address_visibility: 6 }, 'Invalid email_address_visibility'],
  [{ web_home_view: 'stream' }, 'Invalid web_home_view'],
  [{ emojiset: 'apple' }, 'Invalid emojiset'],
  [{ web_animate_image_previews: 'sometimes' }, 'Invalid web_animate_image_previews'],
  [{ resolved_topic_notice_auto_read_policy: 'maybe' }, 'Invalid resolved_topic_notice_auto_read_policy'],
  [{ twenty_four_hour_time: 'yes' }, 'twenty_four_hour_time is not a boolean'],
  [{ web_font_size_px: 'big' }, 'web_font_size_px is not an integer'],
  [{ default_language: 'xx' }, 'Invalid default_language'],
  [{ notification_sound: 'klaxon' }, "Invalid notification sound 'klaxon'"],
  [{ email_notifications_batching_period_seconds: 0 }, 'Invalid email batching period: 0 seconds'],
  [{ email_notifications_batching_period_seconds: 700000 }, 'Invalid email batching period: 700000 seconds'],
  [{ timezone: 'Mars/Olympus_Mons' }, 'timezone is not a recognized time zone'],
];

test('a bad value is refused with BAD_REQUEST naming the setting, and changes nothing', async (t) => {
  const { client } = await newPerson(t.context, 'Bad Values');
  const before = await settingsOf(client);
  for (const [params, msg] of INVALID) {
    const got = await refusal(client.patch('/settings', { ...params, enter_sends: !before.enter_sends }));
    t.deepEqual(got, { status: 400, result: 'error', code: 'BAD_REQUEST', msg }, JSON.stringify(params));
  }
  t.is((await settingsOf(client)).enter_sends, before.enter_sends);
});

test('turning draft synchronization off deletes the drafts kept on the server', async (t) => {
  const { client } = await newPerson(t.context, 'Drafter');
  const draft = { type: '', to: [], topic: '', content: 'not sent yet' };
  await succeeds('POST', '/drafts', client.post('/drafts', { drafts: [draft] }));
  t.is((await succeeds<{ count: number }>('GET', '/drafts', client.get('/drafts'))).count, 1);
  await succeeds('PATCH', '/settings', client.patch('/settings', { enable_drafts_synchronization: false }));
  await succeeds('PATCH', '/settings', client.patch('/settings', { enable_drafts_synchronization: true }));
  t.is((await succeeds<{ count: number }>('GET', '/drafts', client.get('/drafts'))).count, 0);
});

test('automatically_follow_topics_policy decides whether starting a topic follows it', async (t) => {
  const { client, user_id } = await newPerson(t.context, 'Topic Starter');
  const name = `settings follow ${Date.now()}`;
  await succeeds(
    'POST',
    '/channels/create',
    client.post('/channels/create', { name, subscribers: JSON.stringify([user_id]) }),
  );
  const send = (topic: string) =>
    succeeds<Body>('POST', '/messages', client.post('/messages', { type: 'stream', to: name, topic, content: 'hi' }));
  t.is((await send('followed by default')).automatic_new_visibility_policy, 3);
  await succeeds('PATCH', '/settings', client.patch('/settings', { automatically_follow_topics_policy: 4 }));
  t.is((await send('never followed')).automatic_new_visibility_policy, undefined);
});
