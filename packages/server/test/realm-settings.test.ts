import { SYSTEM_GROUPS } from '@chat/protocol';
import type { ChatClient } from '@chat/testkit';
import { channelId, withServer } from './context.js';
import { newPerson } from './people.js';
import { next, register, snapshotOf, type Body, type Event } from './queues.js';

/**
 * PATCH /realm: who may change which setting (administrators, owners for a
 * few), the values it accepts and refuses in the original's words, the
 * `realm` events as the original sends them (checked against the
 * reference by the queue helpers), the register snapshot, and the
 * messaging rules that follow the new values. Tests change one realm, so
 * they run one after another and put back what they changed.
 */
const test = withServer(['desdemona', 'iago', 'hamlet', 'polonius']);

const patch = (client: ChatClient, params: Body) => client.patch<Body>('/realm', params);

async function changed(client: ChatClient, params: Body): Promise<Body> {
  const reply = await patch(client, params);
  if (reply.status !== 200) throw new Error(`PATCH /realm: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

const realmEvent = (op: string, test: (e: Event) => boolean) => (e: Event) =>
  e.type === 'realm' && e.op === op && test(e);
const groupValue = (value: number) => JSON.stringify({ new: value });

test.serial('administrators change settings; the answer names what changed, strings as "updated"', async (t) => {
  const { iago } = t.context;
  const body = await changed(iago, { name: 'Elsinore', allow_message_editing: false, giphy_rating: 3 });
  t.like(body, { result: 'success', name: 'updated', allow_message_editing: false, giphy_rating: 3 });
  const again = await changed(iago, { giphy_rating: 3 });
  t.false('giphy_rating' in again, 'an unchanged value is not named');
  await changed(iago, { name: 'Zulip Dev', allow_message_editing: true, giphy_rating: 2 });
});

test.serial('members are refused; owners alone change the owner-only settings', async (t) => {
  const { desdemona, iago, hamlet, polonius } = t.context;
  for (const client of [hamlet, polonius]) {
    t.like((await patch(client, { name: 'Mine' })).body, {
      code: 'UNAUTHORIZED_PRINCIPAL',
      msg: 'Must be an organization administrator',
    });
  }
  const ownerOnly: Body[] = [
    { message_retention_days: 30 },
    { invite_required: false },
    { waiting_period_threshold: 3 },
    { emails_restricted_to_domains: true },
    { disallow_disposable_email_addresses: false },
    { can_invite_users_group: groupValue(SYSTEM_GROUPS['role:administrators']) },
    { can_manage_all_groups: groupValue(SYSTEM_GROUPS['role:administrators']) },
    { can_create_groups: groupValue(SYSTEM_GROUPS['role:administrators']) },
    { create_multiuse_invite_group: groupValue(SYSTEM_GROUPS['role:owners']) },
    { can_manage_billing_group: groupValue(SYSTEM_GROUPS['role:owners']) },
    // The original asks for an owner before it reads the retention period and the time limits.
    { message_retention_days: 'forever' },
    { waiting_period_threshold: 3, message_content_edit_limit_seconds: 0 },
  ];
  for (const params of ownerOnly) {
    const reply = await patch(iago, params);
    t.like(reply, { status: 400, body: { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization owner' } });
  }
  // ... and after the language, the video provider and the GIPHY rating.
  t.like((await patch(iago, { default_language: 'xx', waiting_period_threshold: 3 })).body, {
    msg: "Invalid language 'xx'",
  });
  t.like(await changed(desdemona, { message_retention_days: 30, waiting_period_threshold: 3 }), {
    message_retention_days: 30,
    waiting_period_threshold: 3,
  });
  const snapshot = await snapshotOf(hamlet, { fetch_event_types: ['realm'] });
  t.like(snapshot, { realm_message_retention_days: 30, realm_waiting_period_threshold: 3 });
  await changed(desdemona, { message_retention_days: 'unlimited', waiting_period_threshold: 0 });
  t.like(await snapshotOf(hamlet, { fetch_event_types: ['realm'] }), { realm_message_retention_days: -1 });
});

test.serial('values are checked as the original checks them', async (t) => {
  const { desdemona, iago } = t.context;
  const refusals: Array<[ChatClient, Body, string]> = [
    [iago, { default_language: 'xx' }, "Invalid language 'xx'"],
    [iago, { video_chat_provider: 2 }, 'Invalid video_chat_provider 2'],
    [iago, { giphy_rating: 9 }, 'Invalid giphy_rating 9'],
    [iago, { message_content_edit_limit_seconds: 0 }, "Bad value for 'message_content_edit_limit_seconds': 0"],
    [
      iago,
      { message_content_delete_limit_seconds: 'soon' },
      "Bad value for 'message_content_delete_limit_seconds': soon",
    ],
    [desdemona, { message_retention_days: -5 }, "Bad value for 'message_retention_days': -5"],
    [iago, { topics_policy: 'inherit' }, 'Invalid topics_policy'],
    [iago, { jitsi_server_url: 'not a url' }, 'jitsi_server_url is not an allowed_type'],
    [iago, { name: 'x'.repeat(41) }, 'name is too long (limit: 40 characters)'],
    [iago, { new_stream_announcements_stream_id: 99999 }, 'Invalid channel ID'],
    [desdemona, { string_id: 'elsewhere' }, 'Must be a demo organization.'],
    [
      iago,
      { can_create_web_public_channel_group: groupValue(SYSTEM_GROUPS['role:members']) },
      "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group.",
    ],
    [
      iago,
      { can_add_subscribers_group: groupValue(SYSTEM_GROUPS['role:everyone']) },
      "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.",
    ],
    [
      iago,
      { can_resolve_topics_group: groupValue(SYSTEM_GROUPS['role:internet']) },
      "'can_resolve_topics_group' setting cannot be set to 'role:internet' group.",
    ],
    [
      iago,
      {
        can_resolve_topics_group: JSON.stringify({
          new: SYSTEM_GROUPS['role:members'],
          old: SYSTEM_GROUPS['role:moderators'],
        }),
      },
      "'old' value does not match the expected value.",
    ],
  ];
  for (const [client, params, msg] of refusals) {
    t.like((await patch(client, params)).body, { result: 'error', code: 'BAD_REQUEST', msg }, JSON.stringify(params));
  }
});

test.serial('each change reaches every queue as the original sends it, and the snapshot follows', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(hamlet, { event_types: ['realm'] });
  const denmark = await channelId(hamlet, 'Denmark');
  const anonymous = { direct_members: [10], direct_subgroups: [SYSTEM_GROUPS['role:moderators']] };
  await changed(iago, {
    description: 'Where plays are written',
    allow_message_editing: false,
    topics_policy: 'disable_empty_topic',
    message_edit_history_visibility_policy: 'moves_only',
    jitsi_server_url: 'https://meet.example.com',
    new_stream_announcements_stream_id: denmark,
    can_resolve_topics_group: JSON.stringify({ new: anonymous }),
  });
  const update = (property: string) => realmEvent('update', (e) => e.property === property);
  const dict = (name: string) => realmEvent('update_dict', (e) => name in (e.data as Body));
  t.like(await next(queue, update('description')), { value: 'Where plays are written' });
  t.like(await next(queue, update('message_edit_history_visibility_policy')), { value: 'moves_only' });
  t.like(await next(queue, update('jitsi_server_url')), { value: 'https://meet.example.com' });
  t.like(await next(queue, update('new_stream_announcements_stream_id')), { value: denmark });
  t.like(await next(queue, dict('allow_message_editing')), {
    property: 'default',
    data: { allow_message_editing: false },
  });
  t.deepEqual((await next(queue, dict('topics_policy'))).data, {
    topics_policy: 'disable_empty_topic',
    mandatory_topics: true,
  });
  t.deepEqual((await next(queue, dict('can_resolve_topics_group'))).data, { can_resolve_topics_group: anonymous });

  const snapshot = await snapshotOf(hamlet, { fetch_event_types: ['realm'] });
  t.like(snapshot, {
    realm_description: 'Where plays are written',
    realm_allow_message_editing: false,
    realm_topics_policy: 'disable_empty_topic',
    realm_mandatory_topics: true,
    realm_message_edit_history_visibility_policy: 'moves_only',
    realm_jitsi_server_url: 'https://meet.example.com',
    realm_new_stream_announcements_stream_id: denmark,
  });
  t.deepEqual(snapshot.realm_can_resolve_topics_group, anonymous);

  await changed(iago, {
    jitsi_server_url: 'default',
    new_stream_announcements_stream_id: -1,
    allow_message_editing: true,
    topics_policy: 'allow_empty_topic',
    message_edit_history_visibility_policy: 'all',
    can_resolve_topics_group: groupValue(SYSTEM_GROUPS['role:everyone']),
  });
  t.like(await next(queue, (e) => e.type === 'realm' && e.property === 'jitsi_server_url' && e.value === null), {
    op: 'update',
  });
  t.like(await snapshotOf(hamlet, { fetch_event_types: ['realm'] }), {
    realm_jitsi_server_url: null,
    realm_new_stream_announcements_stream_id: -1,
    realm_can_resolve_topics_group: SYSTEM_GROUPS['role:everyone'],
  });
});

test.serial('messaging follows the new values: editing, empty topics, deleting, creating channels', async (t) => {
  const { iago, hamlet } = t.context;
  const send = async (topic: string) => {
    const reply = await hamlet.post<Body>('/messages', { type: 'stream', to: 'Denmark', topic, content: 'x' });
    return reply;
  };
  const sent = (await send('settings')).body.id as number;

  await changed(iago, { allow_message_editing: false });
  t.like((await hamlet.patch(`/messages/${sent}`, { content: 'edited' })).body, {
    msg: 'Your organization has turned off message editing',
  });
  await changed(iago, { allow_message_editing: true, topics_policy: 'disable_empty_topic' });
  t.like((await send('')).body, {
    result: 'error',
    msg: 'Sending messages to the general chat is not allowed in this channel.',
  });
  await changed(iago, { topics_policy: 'allow_empty_topic' });
  t.is((await send('')).status, 200);

  await changed(iago, { can_delete_own_message_group: groupValue(SYSTEM_GROUPS['role:administrators']) });
  t.like((await hamlet.delete(`/messages/${sent}`)).body, { msg: "You don't have permission to delete this message" });
  await changed(iago, {
    can_delete_own_message_group: groupValue(SYSTEM_GROUPS['role:everyone']),
    message_content_delete_limit_seconds: 1,
  });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  t.like((await hamlet.delete(`/messages/${sent}`)).body, {
    msg: 'The time limit for deleting this message has passed',
  });
  await changed(iago, { message_content_delete_limit_seconds: 'unlimited' });
  t.is((await hamlet.delete(`/messages/${sent}`)).status, 200);
  await changed(iago, { message_content_delete_limit_seconds: 600 });

  await changed(iago, { can_create_public_channel_group: groupValue(SYSTEM_GROUPS['role:administrators']) });
  const create = await hamlet.post<Body>('/users/me/subscriptions', { subscriptions: '[{"name":"hamlet-new"}]' });
  t.like(create.body, { msg: 'Insufficient permission' });
  await changed(iago, { can_create_public_channel_group: groupValue(SYSTEM_GROUPS['role:members']) });
  const again = await hamlet.post<Body>('/users/me/subscriptions', { subscriptions: '[{"name":"hamlet-new"}]' });
  t.is(again.status, 200);
});

test.serial('administrators choose the settings new users start with; everyone hears each change', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(hamlet, { event_types: ['realm_user_settings_defaults'] });
  const path = '/realm/user_settings_defaults';
  t.like((await hamlet.patch<Body>(path, { twenty_four_hour_time: true })).body, {
    code: 'UNAUTHORIZED_PRINCIPAL',
    msg: 'Must be an organization administrator',
  });
  t.like((await iago.patch<Body>(path, { notification_sound: 'honk' })).body, {
    msg: "Invalid notification sound 'honk'",
  });
  t.is((await iago.patch<Body>(path, { twenty_four_hour_time: true, color_scheme: 2 })).status, 200);
  const defaults = (property: string) => (e: Event) =>
    e.type === 'realm_user_settings_defaults' && e.property === property;
  t.like(await next(queue, defaults('twenty_four_hour_time')), { op: 'update', value: true });
  t.like(await next(queue, defaults('color_scheme')), { value: 2 });
  const snapshot = await snapshotOf(hamlet, { fetch_event_types: ['realm_user_settings_defaults'] });
  t.like(snapshot.realm_user_settings_defaults, { twenty_four_hour_time: true, color_scheme: 2 });
  // A user made now starts with them, and keeps them after the defaults change again.
  const newcomer = await newPerson(t.context, 'Newcomer');
  const settingsOf = async () =>
    (await snapshotOf(newcomer.client, { fetch_event_types: ['user_settings'] })).user_settings as Body;
  t.like(await settingsOf(), { twenty_four_hour_time: true, color_scheme: 2 });
  await iago.patch(path, { twenty_four_hour_time: false, color_scheme: 1 });
  t.like(await settingsOf(), { twenty_four_hour_time: true, color_scheme: 2 });
});

test.serial('the consent to export private data is no default an administrator sets, as in the original', async (t) => {
  const { iago, hamlet } = t.context;
  const path = '/realm/user_settings_defaults';
  const reply = await iago.patch<Body>(path, { allow_private_data_export: true });
  t.is(reply.status, 200);
  t.deepEqual(reply.body.ignored_parameters_unsupported, ['allow_private_data_export']);
  const snapshot = await snapshotOf(hamlet, { fetch_event_types: ['realm_user_settings_defaults'] });
  t.like(snapshot.realm_user_settings_defaults, { allow_private_data_export: false });
});
