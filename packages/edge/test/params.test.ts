import anyTest, { type TestFn } from 'ava';
import { IAGO, startEdge, type Started } from './fixtures.js';
import { call } from './http.js';

const test = anyTest as TestFn<Started>;

test.before(async (t) => {
  t.context = await startEdge();
});

test.after.always(async (t) => {
  await new Promise((resolve) => t.context.server.close(resolve));
});

const send = (t: { context: Started }, form: Record<string, string>) =>
  call(t.context.baseUrl, 'POST', '/api/v1/messages', { auth: IAGO, form });

test('a form-encoded request gets the success envelope with typed parameters', async (t) => {
  const reply = await send(t, { type: 'direct', to: '[9, 10]', content: 'hi', read_by_sender: 'true' });
  t.is(reply.status, 200);
  t.regex(reply.headers.get('content-type') ?? '', /^application\/json/);
  t.like(reply.body, { result: 'success', msg: '', id: 42 });
  t.deepEqual(reply.body['params'], { type: 'direct', to: [9, 10], content: 'hi', read_by_sender: true });
  t.false('ignored_parameters_unsupported' in reply.body);
});

test('a union parameter reads an integer, a list or a name', async (t) => {
  const asInt = await send(t, { type: 'stream', to: '9', topic: 'a', content: 'x' });
  t.is((asInt.body['params'] as Record<string, unknown>)['to'], 9);
  const asName = await send(t, { type: 'stream', to: 'general', topic: 'a', content: 'x' });
  t.is((asName.body['params'] as Record<string, unknown>)['to'], 'general');
});

test('strings stay exactly as sent, even when they look like JSON', async (t) => {
  const reply = await send(t, { type: 'stream', to: '9', topic: '"123"', content: 'true' });
  t.like(reply.body['params'], { topic: '"123"', content: 'true' });
});

test('a JSON-encoded list of objects is parsed and checked', async (t) => {
  const narrow = JSON.stringify([{ operator: 'channel', operand: 'general' }]);
  const ok = await send(t, { type: 'direct', to: '[9]', content: 'x', narrow });
  t.deepEqual((ok.body['params'] as Record<string, unknown>)['narrow'], [{ operator: 'channel', operand: 'general' }]);
  const bad = await send(t, { type: 'direct', to: '[9]', content: 'x', narrow: '[{"operator": 1, "operand": "a"}]' });
  t.is(bad.status, 400);
  t.is(bad.body['msg'], 'narrow[0]["operator"] is not a string');
});

test('a missing required parameter is REQUEST_VARIABLE_MISSING with var_name', async (t) => {
  const reply = await send(t, { type: 'direct', to: '[9]' });
  t.is(reply.status, 400);
  t.deepEqual(reply.body, {
    result: 'error',
    msg: "Missing 'content' argument",
    code: 'REQUEST_VARIABLE_MISSING',
    var_name: 'content',
  });
});

test('malformed integer, boolean and JSON list parameters are BAD_REQUEST naming the parameter', async (t) => {
  const int = await call(t.context.baseUrl, 'GET', '/api/v1/users/7', {
    auth: IAGO,
    query: { include_custom_profile_fields: 'yes' },
  });
  t.is(int.status, 400);
  t.like(int.body, { result: 'error', code: 'BAD_REQUEST', msg: 'include_custom_profile_fields is not a boolean' });

  const list = await call(t.context.baseUrl, 'DELETE', '/api/v1/users/me/subscriptions', {
    auth: IAGO,
    form: { subscriptions: '["general"' },
  });
  t.is(list.status, 400);
  t.like(list.body, { code: 'BAD_REQUEST', msg: 'subscriptions is not valid JSON' });

  const element = await call(t.context.baseUrl, 'DELETE', '/api/v1/users/me/subscriptions', {
    auth: IAGO,
    form: { subscriptions: '["general", 7]' },
  });
  t.is(element.status, 400);
  t.like(element.body, { code: 'BAD_REQUEST', msg: 'subscriptions[1] is not a string' });

  const literal = await send(t, { type: 'private?', to: '[9]', content: 'x' });
  t.like(literal.body, { code: 'BAD_REQUEST', msg: 'Invalid type' });
});

test('schema limits are reported in Zulip wording', async (t) => {
  const long = await send(t, { type: 'stream', to: '9', topic: 't'.repeat(61), content: 'x' });
  t.like(long.body, { code: 'BAD_REQUEST', msg: 'topic is too long (limit: 60 characters)' });
  const blank = await send(t, { type: 'stream', to: '9', topic: 't', content: '' });
  t.like(blank.body, { code: 'BAD_REQUEST', msg: 'content cannot be blank' });
});

test('unknown parameters are listed, sorted, in ignored_parameters_unsupported', async (t) => {
  const reply = await send(t, { type: 'direct', to: '[9]', content: 'x', zebra: '1', apple: '2' });
  t.is(reply.status, 200);
  t.deepEqual(reply.body['ignored_parameters_unsupported'], ['apple', 'zebra']);
});

test('an alias is accepted, but not together with its parameter', async (t) => {
  const alias = await send(t, { type: 'stream', to: '9', subject: 'old name', content: 'x' });
  t.like(alias.body['params'], { topic: 'old name' });
  t.false('ignored_parameters_unsupported' in alias.body);
  const both = await send(t, { type: 'stream', to: '9', subject: 'a', topic: 'b', content: 'x' });
  t.is(both.status, 400);
  t.is(both.body['msg'], "Can't decide between 'topic' and 'subject' arguments");
});

test('GET reads the query string', async (t) => {
  const reply = await call(t.context.baseUrl, 'GET', '/api/v1/users/7', {
    auth: IAGO,
    query: { include_custom_profile_fields: 'true' },
  });
  t.like(reply.body, { result: 'success', user_id: 7, custom: true });
});

test('POST also reads the query string, and the body wins over it', async (t) => {
  const reply = await call(t.context.baseUrl, 'POST', '/api/v1/messages', {
    auth: IAGO,
    query: { type: 'direct', content: 'from query' },
    form: { to: '[9]', content: 'from body' },
  });
  t.like(reply.body['params'], { type: 'direct', to: [9], content: 'from body' });
});

test('PATCH and DELETE read form bodies', async (t) => {
  const patch = await call(t.context.baseUrl, 'PATCH', '/api/v1/messages/5', { auth: IAGO, form: { content: 'new' } });
  t.deepEqual(patch.body['params'], { message_id: 5, content: 'new' });
  const del = await call(t.context.baseUrl, 'DELETE', '/api/v1/users/me/subscriptions', {
    auth: IAGO,
    form: { subscriptions: '["general","design"]' },
  });
  t.deepEqual(del.body['removed'], ['general', 'design']);
  const query = await call(t.context.baseUrl, 'DELETE', '/api/v1/users/me/subscriptions', {
    auth: IAGO,
    query: { subscriptions: '["general"]' },
  });
  t.deepEqual(query.body['removed'], ['general']);
});

test('a JSON body is accepted with its values already typed', async (t) => {
  const reply = await call(t.context.baseUrl, 'POST', '/api/v1/messages', {
    auth: IAGO,
    json: { type: 'direct', to: [9], content: 'json', read_by_sender: false },
  });
  t.deepEqual(reply.body['params'], { type: 'direct', to: [9], content: 'json', read_by_sender: false });
  const malformed = await call(t.context.baseUrl, 'POST', '/api/v1/messages', {
    auth: IAGO,
    body: '{"type": ',
    headers: { 'Content-Type': 'application/json' },
  });
  t.is(malformed.status, 400);
  t.like(malformed.body, { code: 'BAD_REQUEST', msg: 'Malformed JSON' });
});

test('a path parameter is typed by the schema, and a bad one is rejected', async (t) => {
  const ok = await call(t.context.baseUrl, 'GET', '/api/v1/users/12', { auth: IAGO });
  t.is(ok.body['user_id'], 12);
  const bad = await call(t.context.baseUrl, 'GET', '/api/v1/users/twelve', { auth: IAGO });
  t.is(bad.status, 400);
  t.like(bad.body, { result: 'error', code: 'BAD_REQUEST', msg: 'user_id is not an integer' });
  // Beyond 2^53 a number would lose digits on the way; it is refused instead.
  const huge = await call(t.context.baseUrl, 'GET', '/api/v1/users/99999999999999999999', { auth: IAGO });
  t.like(huge.body, { code: 'BAD_REQUEST', msg: 'user_id is not an integer' });
});

test('a static path wins over a parameter in the same position', async (t) => {
  const reply = await call(t.context.baseUrl, 'GET', '/api/v1/users/me', { auth: IAGO });
  t.like(reply.body, { result: 'success', user_id: 11, email: 'iago@zulip.com' });
});

test('asks to actors carry the request id', async (t) => {
  const reply = await call(t.context.baseUrl, 'POST', '/api/v1/messages', {
    auth: IAGO,
    form: { type: 'direct', to: '[9]', content: 'traced' },
    headers: { 'X-Request-Id': 'trace-actors-1' },
  });
  t.is(reply.body['requestId'], 'trace-actors-1');
  const ask = t.context.actors.asks.find((a) => a.opts?.requestId === 'trace-actors-1');
  t.like(ask?.body, { type: 'send', message: { content: 'traced' } });
});
