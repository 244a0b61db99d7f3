import { readFileSync } from 'node:fs';
import { registerKeys, schemaProperties } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { FLUTTER_KEYS, FLUTTER_REGISTER, missingKeys, TERMINAL_KEYS, TERMINAL_REGISTER } from './client-keys.js';
import { snapshotOf, type Body } from './queues.js';

/** The emoji name map this server serves: the Markdown package's data file. */
const EMOJI_NAMES = (
  JSON.parse(readFileSync(new URL('../../../markdown/data/emoji-names.json', import.meta.url), 'utf8')) as {
    code_to_names: Record<string, string[]>;
  }
).code_to_names;

/**
 * The register snapshot is complete: every key the reference documents for
 * each `fetch_event_types` value (and for the default fetch) is there, with
 * the reference's type (`snapshotOf` checks every answer against the
 * reference's schema), legacy forms included; and every key Zulip's own
 * clients read without a fallback is there for the parameters they send.
 */
const test = withServer(['hamlet', 'iago', 'othello'], {}, async (t) => {
  const { iago, hamlet, othello } = t.context;
  // Something unread in a channel and in a direct conversation, a muted topic
  // and presence, so that the lists clients walk are not empty.
  await iago.post('/messages', { type: 'stream', to: 'Denmark', topic: 'keys', content: 'hello' });
  await iago.post('/messages', { type: 'direct', to: JSON.stringify([IDS.hamlet]), content: 'hi' });
  const denmark = (await hamlet.get<{ stream_id: number }>('/get_stream_id', { stream: 'Denmark' })).body.stream_id;
  await hamlet.post('/user_topics', { stream_id: denmark, topic: 'muted here', visibility_policy: 1 });
  await iago.post('/users/me/presence', { status: 'active' });
  // Channels Hamlet and Iago were never in: a public one, and a private one only the administrator may know of.
  for (const [name, inviteOnly] of [NEVER_PUBLIC, NEVER_PRIVATE].map((n) => [n, n === NEVER_PRIVATE] as const)) {
    const made = await othello.post('/users/me/subscriptions', {
      subscriptions: JSON.stringify([{ name, description: `**${name}**` }]),
      invite_only: inviteOnly,
    });
    if (made.status !== 200) throw new Error(`create ${name}: ${JSON.stringify(made.body)}`);
  }
});

const NEVER_PUBLIC = 'never keys';
const NEVER_PRIVATE = 'never keys private';
const json = (value: unknown) => JSON.stringify(value);
const KEYS = registerKeys();
const FETCH_TYPES = [...new Set(KEYS.flatMap((k) => (k.fetch ? [k.fetch] : [])))];

/** The keys the reference says a fetch of `types` brings (legacy settings: without the `user_settings_object` capability). */
const expected = (types: string[] | null) =>
  KEYS.filter(
    (k) =>
      !k.conditional &&
      (types === null ||
        k.fetch === undefined ||
        (types.includes(k.fetch) && (k.alsoNeeds === undefined || types.includes(k.alsoNeeds)))),
  ).map((k) => k.key);

test('the default fetch has every key of the reference, the legacy settings too without user_settings_object', async (t) => {
  const body = await snapshotOf(t.context.hamlet);
  t.deepEqual(
    expected(null).filter((key) => !(key in body)),
    [],
  );
  const modern = await snapshotOf(t.context.hamlet, { client_capabilities: json({ user_settings_object: true }) });
  const legacy = KEYS.filter((k) => k.legacySetting).map((k) => k.key);
  t.true(legacy.length > 30);
  t.deepEqual(
    legacy.filter((key) => key in modern),
    [],
  );
  t.is(typeof modern.user_settings, 'object');
});

test('each fetch_event_types value brings its keys and no other section', async (t) => {
  const always = new Set(expected([]));
  for (const type of FETCH_TYPES) {
    const body = await snapshotOf(t.context.hamlet, { fetch_event_types: json([type]) });
    const missing = expected([type]).filter((key) => !(key in body));
    t.deepEqual(missing, [], `fetch_event_types ["${type}"]`);
    const others = KEYS.filter((k) => k.fetch !== undefined && k.fetch !== type && !expected([type]).includes(k.key));
    const extra = others.filter((k) => k.key in body && !always.has(k.key)).map((k) => k.key);
    t.deepEqual(extra, [], `fetch_event_types ["${type}"] brings only its own`);
  }
});

test('unknown fetch_event_types values are ignored, as the original does', async (t) => {
  const body = await snapshotOf(t.context.hamlet, { fetch_event_types: json(['no_such_section', 'alert_words']) });
  t.deepEqual(body.alert_words, []);
  t.false('realm_name' in body);
});

test('the legacy forms: presences by e-mail, muted_topics, unread pms with sender_id, top-level settings', async (t) => {
  const { hamlet } = t.context;
  const body = await snapshotOf(hamlet, {
    fetch_event_types: json(['presence', 'muted_topics', 'message', 'update_message_flags', 'update_display_settings']),
  });
  const presences = body.presences as Record<string, Body>;
  t.true('iago@zulip.com' in presences, Object.keys(presences).join());
  t.like(presences['iago@zulip.com']!.aggregated, { status: 'active' });
  const slim = await snapshotOf(hamlet, { fetch_event_types: json(['presence']), slim_presence: true });
  t.true(String(IDS.iago) in (slim.presences as Body));
  const muted = body.muted_topics as Array<[string, string, number]>;
  t.deepEqual(
    muted.map(([channel, topic]) => [channel, topic]),
    [['Denmark', 'muted here']],
  );
  t.is(typeof muted[0]![2], 'number');
  const pms = (body.unread_msgs as { pms: Body[] }).pms;
  t.like(
    pms.find((p) => p.other_user_id === IDS.iago),
    { sender_id: IDS.iago },
  );
  t.is(typeof body.twenty_four_hour_time, 'boolean');
});

test('zulip-flutter finds every key it reads without a fallback', async (t) => {
  const body = await snapshotOf(t.context.hamlet, FLUTTER_REGISTER);
  t.deepEqual(missingKeys(body, FLUTTER_KEYS), []);
  t.true((body.unread_msgs as { pms: unknown[] }).pms.length > 0);
});

test('zulip-terminal 0.7.0 finds every key it reads without a fallback', async (t) => {
  const body = await snapshotOf(t.context.hamlet, {
    ...TERMINAL_REGISTER,
    fetch_event_types: json(TERMINAL_REGISTER.fetch_event_types),
    event_types: json(TERMINAL_REGISTER.event_types),
  });
  t.deepEqual(missingKeys(body, TERMINAL_KEYS), []);
  t.true((body.unread_msgs as { streams: unknown[] }).streams.length > 0);
  // Its re-registration asks for its event types alone and reads max_message_id.
  const again = await snapshotOf(t.context.hamlet, {
    event_types: json(TERMINAL_REGISTER.event_types),
    client_gravatar: true,
  });
  t.is(typeof again.max_message_id, 'number');
});

test('the key list itself fails on a missing key and on a wrong type', (t) => {
  t.deepEqual(missingKeys({}, [{ path: 'user_id', type: 'number', file: 'f' }]), [
    'user_id: no user_id at top level (f)',
  ]);
  t.deepEqual(missingKeys({ a: [{ b: '1' }] }, [{ path: 'a[].b', type: 'number', file: 'f' }]), [
    'a[].b: string at a[0].b, not number (f)',
  ]);
});

test('server_emoji_data_url serves every name and alias, without credentials, cached by ETag', async (t) => {
  const body = await snapshotOf(t.context.hamlet, { fetch_event_types: json(['realm']) });
  const url = body.server_emoji_data_url as string;
  t.true(url.startsWith(t.context.server.server.url), url);
  const response = await fetch(url);
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /application\/json/);
  const data = (await response.json()) as { code_to_names: Record<string, string[]> };
  // The whole name map, as the Markdown package holds it (whose tests compare it with the original's).
  t.deepEqual(data.code_to_names, EMOJI_NAMES);
  t.is(Object.keys(data.code_to_names).length, 1883);
  const again = await fetch(url, { headers: { 'if-none-match': response.headers.get('etag')! } });
  t.is(again.status, 304);
});

test('each never_subscribed entry has every key of the reference and no other: the channel as GET /streams/{id} gives it', async (t) => {
  const { hamlet, iago } = t.context;
  const lists = ['subscribers', 'partial_subscribers'];
  const keys = schemaProperties('register_queue_200_response_allOf_never_subscribed_inner');
  const channel = keys.filter((key) => !lists.includes(key)).sort();
  t.true(channel.includes('stream_weekly_traffic') && channel.includes('can_send_message_group'), keys.join());
  const cases = [
    { client: hamlet, include: undefined, names: [NEVER_PUBLIC] },
    { client: hamlet, include: true, names: [NEVER_PUBLIC] },
    { client: iago, include: false, names: [NEVER_PUBLIC, NEVER_PRIVATE] },
    { client: iago, include: true, names: [NEVER_PUBLIC, NEVER_PRIVATE] },
  ];
  for (const { client, include, names } of cases) {
    const params = {
      fetch_event_types: json(['subscription']),
      ...(include === undefined ? {} : { include_subscribers: include }),
    };
    const never = (await snapshotOf(client, params)).never_subscribed as Body[];
    const found = names.map((name) => never.find((c) => c.name === name));
    t.true(found.every(Boolean), `${names.join()} in ${never.map((c) => c.name).join()}`);
    for (const entry of never) {
      const expected = include === true ? [...channel, 'subscribers'].sort() : channel;
      t.deepEqual(Object.keys(entry).sort(), expected, `${String(entry.name)} include_subscribers ${String(include)}`);
    }
    for (const entry of found as Body[]) {
      const { subscribers: _lists, ...rest } = entry;
      const stream = (await client.get<{ stream: Body }>(`/streams/${String(entry.stream_id)}`)).body.stream;
      t.deepEqual(rest, stream, String(entry.name));
    }
  }
});
