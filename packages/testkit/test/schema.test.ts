import test from 'ava';
import { assertResponse, checkEvent, checkResponse } from '../src/index.js';
import { findOperation } from '../src/schema/paths.js';
import { loadReference, referencePath } from '../src/schema/reference.js';

/** Bodies built by hand from the reference's field lists, as a conforming server would send them. */
const ownUser = {
  result: 'success',
  msg: '',
  user_id: 8,
  email: 'user8@example.com',
  delivery_email: 'iago@example.com',
  full_name: 'Iago',
  avatar_url: 'https://example.com/avatar/8',
  avatar_version: 1,
  is_admin: true,
  is_owner: false,
  is_guest: false,
  is_bot: false,
  is_active: true,
  role: 200,
  timezone: '',
  date_joined: '2024-01-02T03:04:05+00:00',
  max_message_id: 30,
  profile_data: {},
};

const channel = {
  stream_id: 3,
  name: 'general',
  description: 'Everyone',
  rendered_description: '<p>Everyone</p>',
  date_created: 1_700_000_000,
  creator_id: null,
  invite_only: false,
  is_web_public: false,
  is_archived: false,
  is_announcement_only: false,
  is_recently_active: true,
  history_public_to_subscribers: true,
  stream_post_policy: 1,
  message_retention_days: null,
  first_message_id: null,
  folder_id: null,
  stream_weekly_traffic: null,
  subscriber_count: 2,
  can_remove_subscribers_group: 10,
  can_subscribe_group: { direct_members: [8], direct_subgroups: [] },
};

function mentions(errors: string[], text: string): boolean {
  return errors.some((line) => line.includes(text));
}

test('the reference is found beside the repository, unless overridden', (t) => {
  t.true(referencePath().endsWith('/shared/reference/zulip-openapi.yaml'));
  const saved = process.env['CHAT_REFERENCE_OPENAPI'];
  process.env['CHAT_REFERENCE_OPENAPI'] = '/elsewhere/api.yaml';
  try {
    t.is(referencePath(), '/elsewhere/api.yaml');
  } finally {
    if (saved === undefined) delete process.env['CHAT_REFERENCE_OPENAPI'];
    else process.env['CHAT_REFERENCE_OPENAPI'] = saved;
  }
});

test('a real GET /users/me body passes, with or without the /api/v1 prefix', (t) => {
  t.deepEqual(checkResponse('GET', '/users/me', 200, ownUser), { ok: true, errors: [] });
  t.true(checkResponse('get', '/api/v1/users/me', 200, ownUser).ok);
});

test('POST /messages success and its 400 error envelope pass', (t) => {
  t.true(checkResponse('POST', '/messages', 200, { result: 'success', msg: '', id: 42 }).ok);
  t.true(checkResponse('POST', '/api/v1/messages', 200, { result: 'success', msg: '', id: 42 }).ok);
  const error = { result: 'error', msg: "Channel 'nowhere' does not exist", code: 'BAD_REQUEST' };
  t.true(checkResponse('POST', '/messages', 400, error).ok);
  t.true(checkResponse('POST', '/messages', 400, { ...error, code: 'STREAM_DOES_NOT_EXIST', stream: 'nowhere' }).ok);
});

test('the JsonSuccessBase + closed object pattern accepts the base fields and rejects others', (t) => {
  const path = '/users/me/muted_users/12';
  t.true(checkResponse('POST', path, 200, { result: 'success', msg: '' }).ok);
  t.true(checkResponse('POST', path, 200, { result: 'success', msg: '', ignored_parameters_unsupported: ['x'] }).ok);
  const extra = checkResponse('POST', path, 200, { result: 'success', msg: '', muted: true });
  t.false(extra.ok);
  t.true(mentions(extra.errors, '/muted: unexpected field'), extra.errors.join('\n'));
});

test('nullable fields accept null and still check the type otherwise', (t) => {
  t.true(checkResponse('GET', '/streams/3', 200, { result: 'success', msg: '', stream: channel }).ok);
  const bad = checkResponse('GET', '/streams/3', 200, {
    result: 'success',
    msg: '',
    stream: { ...channel, creator_id: 'x' },
  });
  t.false(bad.ok);
  t.true(mentions(bad.errors, '/stream/creator_id: must be integer,null'), bad.errors.join('\n'));
});

test('a wrong-typed field fails, naming the field', (t) => {
  const result = checkResponse('POST', '/messages', 200, { result: 'success', msg: '', id: '42' });
  t.false(result.ok);
  t.deepEqual(result.errors, ['/id: must be integer, got "42"']);
});

test('a missing required field fails, naming the field', (t) => {
  const result = checkResponse('POST', '/messages', 200, { result: 'success', msg: '' });
  t.deepEqual(result, { ok: false, errors: ['/id: missing required field'] });
});

test('an extra field where additionalProperties is false fails, naming the field', (t) => {
  const result = checkResponse('GET', '/users/me', 200, { ...ownUser, favourite_colour: 'teal' });
  t.false(result.ok);
  t.true(mentions(result.errors, '/favourite_colour: unexpected field'), result.errors.join('\n'));
});

test('an error body fitting none of the alternatives reports the closest one', (t) => {
  const result = checkResponse('POST', '/messages', 400, { result: 'error', msg: 'no', code: 400 });
  t.false(result.ok);
  t.true(mentions(result.errors, '/code: must be string'), result.errors.join('\n'));
});

test('assertResponse throws with the path of each bad field and passes good bodies', (t) => {
  t.notThrows(() => assertResponse('GET', '/streams/3/members', 200, { result: 'success', msg: '', subscribers: [8] }));
  const error = t.throws(() =>
    assertResponse('GET', '/streams/3/members', 200, { result: 'success', subscribers: ['8'] }),
  );
  t.regex(error!.message, /GET \/streams\/3\/members 200/);
  t.regex(error!.message, /\/msg: missing required field/);
  t.regex(error!.message, /\/subscribers\/0: must be integer/);
});

test('path matching prefers literal segments, then integer parameters', (t) => {
  const doc = loadReference();
  const template = (method: string, path: string) => findOperation(doc, method, path)?.template;
  t.is(template('GET', '/users/me'), '/users/me');
  t.is(template('GET', '/api/v1/users/17'), '/users/{user_id}');
  t.is(template('GET', '/users/iago%40example.com'), '/users/{email}');
  t.is(template('GET', '/users/me/subscriptions'), '/users/me/subscriptions');
  t.is(template('GET', '/users/me/subscriptions?include_subscribers=true'), '/users/me/subscriptions');
  t.is(template('POST', '/messages/flags'), '/messages/flags');
  t.is(template('PATCH', '/messages/17'), '/messages/{message_id}');
  t.is(template('GET', '/streams/3/members'), '/streams/{stream_id}/members');
  t.is(template('GET', '/messages/17/'), '/messages/{message_id}');
  // The own-user body is not a GET /users/{user_id} body, so matching /users/me that way would be noticed.
  t.false(checkResponse('GET', '/users/17', 200, ownUser).ok);
});

test('an unknown path, method or undocumented status fails with a clear error instead of passing', (t) => {
  const body = { result: 'success', msg: '' };
  t.deepEqual(checkResponse('GET', '/no/such/thing', 200, body), {
    ok: false,
    errors: ['the reference has no operation matching GET /no/such/thing'],
  });
  t.false(checkResponse('PUT', '/messages', 200, body).ok);
  const status = checkResponse('GET', '/users/me', 404, body);
  t.false(status.ok);
  t.regex(status.errors[0]!, /no 404 response for GET \/users\/me/);
  t.throws(() => assertResponse('GET', '/no/such/thing', 200, body), { message: /no operation matching/ });
});

test('events are checked against the shape chosen by type and op', (t) => {
  const reaction = {
    id: 4,
    type: 'reaction',
    op: 'add',
    message_id: 17,
    user_id: 8,
    emoji_name: 'tada',
    emoji_code: '1f389',
    reaction_type: 'unicode_emoji',
  };
  t.deepEqual(checkEvent(reaction), { ok: true, errors: [] });
  t.true(checkEvent({ ...reaction, op: 'remove' }).ok);
  t.true(checkEvent({ id: 5, type: 'heartbeat' }).ok);

  const wrongType = checkEvent({ ...reaction, message_id: '17' });
  t.false(wrongType.ok);
  t.true(mentions(wrongType.errors, '/message_id: must be integer'), wrongType.errors.join('\n'));
  t.true(mentions(checkEvent({ ...reaction, extra: 1 }).errors, '/extra: unexpected field'));
  t.true(mentions(checkEvent({ ...reaction, op: 'explode' }).errors, '/op: event type "reaction" has no op "explode"'));
  t.true(mentions(checkEvent({ ...reaction, op: undefined }).errors, '/op: event type "reaction" needs an op'));
  t.true(mentions(checkEvent({ id: 1, type: 'no_such_event' }).errors, 'no event of type "no_such_event"'));
  t.false(checkEvent('reaction').ok);
});
