import anyTest, { type TestFn } from 'ava';
import { IAGO, LIMITS, SECRET_MESSAGE, basic, repeatedTopLevelKeys, startEdge, type Started } from './fixtures.js';
import { call } from './http.js';

const test = anyTest as TestFn<Started>;

interface FormMedia {
  schema: { required: string[]; properties: Record<string, unknown> };
  encoding: Record<string, { contentType: string } | undefined>;
}

test.before(async (t) => {
  t.context = await startEdge();
});

test.after.always(async (t) => {
  await new Promise((resolve) => t.context.server.close(resolve));
});

test('no credentials on a required route is 401 UNAUTHORIZED in the reference wording', async (t) => {
  const reply = await call(t.context.baseUrl, 'GET', '/api/v1/users/me');
  t.is(reply.status, 401);
  t.deepEqual(reply.body, {
    result: 'error',
    msg: 'Not logged in: API authentication or user session required',
    code: 'UNAUTHORIZED',
  });
  t.regex(reply.headers.get('www-authenticate') ?? '', /^Basic/);
});

test('wrong credentials are the error authenticate throws', async (t) => {
  const wrongKey = await call(t.context.baseUrl, 'GET', '/api/v1/users/me', { auth: basic('iago@zulip.com', 'bad') });
  t.is(wrongKey.status, 401);
  t.like(wrongKey.body, { result: 'error', code: 'INVALID_API_KEY' });
  const deactivated = await call(t.context.baseUrl, 'GET', '/api/v1/users/me', { auth: basic('gone@zulip.com', 'k') });
  t.is(deactivated.status, 401);
  t.like(deactivated.body, { code: 'USER_DEACTIVATED' });
});

test('a malformed Authorization header is 401', async (t) => {
  for (const header of ['Basic', 'Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, 'Bearer abc']) {
    const reply = await call(t.context.baseUrl, 'GET', '/api/v1/users/me', { auth: header });
    t.is(reply.status, 401, header);
    t.is(reply.body['code'], 'UNAUTHORIZED', header);
  }
});

test('authentication comes before parameter checks', async (t) => {
  const reply = await call(t.context.baseUrl, 'POST', '/api/v1/messages', { form: {} });
  t.is(reply.status, 401);
});

test('an optional-auth route runs anonymously, recognizes a caller, and rejects a wrong key', async (t) => {
  const anonymous = await call(t.context.baseUrl, 'GET', '/api/v1/server_settings');
  t.like(anonymous.body, { result: 'success', user_id: null });
  const known = await call(t.context.baseUrl, 'GET', '/api/v1/server_settings', { auth: IAGO });
  t.like(known.body, { result: 'success', user_id: 11 });
  const wrong = await call(t.context.baseUrl, 'GET', '/api/v1/server_settings', { auth: basic('iago@zulip.com', 'x') });
  t.is(wrong.status, 401);
});

test('an unknown route is a 404 envelope, under /api/v1 and elsewhere', async (t) => {
  for (const path of ['/api/v1/no_such_thing', '/elsewhere', '/']) {
    const reply = await call(t.context.baseUrl, 'GET', path, { auth: IAGO });
    t.is(reply.status, 404, path);
    t.deepEqual(reply.body, { result: 'error', msg: 'Endpoint does not exist', code: 'NOT_FOUND' }, path);
  }
});

test('a known path with another method is a 405 envelope with Allow', async (t) => {
  const reply = await call(t.context.baseUrl, 'PUT', '/api/v1/messages', { auth: IAGO });
  t.is(reply.status, 405);
  t.like(reply.body, { result: 'error', msg: 'Method Not Allowed' });
  t.is(reply.headers.get('allow'), 'POST');
});

test('a route is found whatever the case of its path and with a trailing slash, under both prefixes', async (t) => {
  for (const path of [
    '/api/v1/users/me',
    '/API/V1/Users/Me',
    '/api/v1/users/me/',
    '/json/users/me',
    '/Json/Users/me',
  ]) {
    const reply = await call(t.context.baseUrl, 'GET', path, { auth: IAGO });
    t.is(reply.status, 200, path);
    t.like(reply.body, { result: 'success', user_id: 11 }, path);
  }
  for (const path of ['/api/v1/users', '/api/v1/usersx/me', '/api/v1//users/me', '/users/me']) {
    const reply = await call(t.context.baseUrl, 'GET', path, { auth: IAGO });
    t.is(reply.status, 404, path);
  }
  t.is((await call(t.context.baseUrl, 'PUT', '/API/v1/Messages/', { auth: IAGO })).status, 405);
});

test('a plain Error is a 500 envelope that reveals nothing, logged with stack and request id', async (t) => {
  const reply = await call(t.context.baseUrl, 'GET', '/api/v1/crash', { headers: { 'X-Request-Id': 'crash-1' } });
  t.is(reply.status, 500);
  t.deepEqual(reply.body, { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
  t.false(reply.text.includes(SECRET_MESSAGE));
  t.false(/\bat /.test(reply.text));
  const logged = t.context.logLines.find((line) => line['requestId'] === 'crash-1' && line['err'] !== undefined);
  const err = logged?.['err'] as Record<string, unknown> | undefined;
  t.is(err?.['message'], SECRET_MESSAGE);
  t.regex(String(err?.['stack']), /\n\s+at /);
});

test('no log line names a key twice, a 5xx domain error and a crash included', async (t) => {
  t.deepEqual(repeatedTopLevelKeys('{"a":1,"b":{"a":2},"c":"\\"a\\":","a":3}'), ['a']);
  await call(t.context.baseUrl, 'GET', '/api/v1/busy', { headers: { 'X-Request-Id': 'busy-1' } });
  await call(t.context.baseUrl, 'GET', '/api/v1/crash');
  await call(t.context.baseUrl, 'GET', '/api/v1/users/me', { headers: { Authorization: IAGO } });
  const busy = t.context.logLines.filter((line) => line['requestId'] === 'busy-1');
  t.true(busy.some((line) => line['msg'] === 'request failed' && line['error'] === 'Too busy; try again'));
  t.deepEqual(t.context.repeatedKeys, []);
});

test('a ChatError keeps its status, code and extra fields', async (t) => {
  const reply = await call(t.context.baseUrl, 'GET', '/api/v1/channel_lookup', { query: { name: 'nowhere' } });
  t.is(reply.status, 400);
  t.deepEqual(reply.body, {
    result: 'error',
    msg: "Channel 'nowhere' does not exist",
    code: 'STREAM_DOES_NOT_EXIST',
    stream: 'nowhere',
  });
});

test('the request id is echoed when sane and made up otherwise', async (t) => {
  const echoed = await call(t.context.baseUrl, 'GET', '/api/v1/server_settings', {
    headers: { 'X-Request-Id': 'abc-123_x' },
  });
  t.is(echoed.headers.get('x-request-id'), 'abc-123_x');
  const insane = await call(t.context.baseUrl, 'GET', '/api/v1/server_settings', {
    headers: { 'X-Request-Id': 'a b<script>' },
  });
  t.regex(insane.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const failed = await call(t.context.baseUrl, 'GET', '/api/v1/nowhere', { headers: { 'X-Request-Id': 'lost-1' } });
  t.is(failed.headers.get('x-request-id'), 'lost-1');
});

test('each request is one log line with route template, status and user, and secrets are redacted', async (t) => {
  await call(t.context.baseUrl, 'GET', '/api/v1/users/77', { auth: IAGO, headers: { 'X-Request-Id': 'log-1' } });
  const lines = t.context.logLines.filter((line) => line['requestId'] === 'log-1' && line['msg'] === 'request');
  t.is(lines.length, 1);
  t.like(lines[0], { method: 'GET', route: '/api/v1/users/{user_id}', status: 200, userId: 11 });
  t.is(typeof lines[0]?.['durationMs'], 'number');

  await call(t.context.baseUrl, 'POST', '/api/v1/fetch_api_key', {
    form: { username: 'iago@zulip.com', password: 'sesame-open' },
    headers: { 'X-Request-Id': 'log-2' },
  });
  const all = JSON.stringify(t.context.logLines);
  t.false(all.includes('sesame-open'));
  t.false(all.includes(IAGO.slice('Basic '.length)));
  const attempt = t.context.logLines.find((line) => line['requestId'] === 'log-2' && line['msg'] === 'login attempt');
  t.like(attempt?.['params'], { username: 'iago@zulip.com', password: '[redacted]' });
});

test('GET /metrics exposes request counters and durations', async (t) => {
  await call(t.context.baseUrl, 'GET', '/api/v1/users/me', { auth: IAGO });
  const reply = await call(t.context.baseUrl, 'GET', '/metrics');
  t.is(reply.status, 200);
  t.regex(reply.headers.get('content-type') ?? '', /^text\/plain/);
  t.regex(reply.text, /http_requests_total\{method="GET",route="\/api\/v1\/users\/me",status="200"\} \d+/);
  t.regex(reply.text, /http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/api\/v1\/users\/me"\}/);
});

test('GET /api/v1/openapi.json describes the routes and their parameters', async (t) => {
  const reply = await call(t.context.baseUrl, 'GET', '/api/v1/openapi.json');
  t.is(reply.status, 200);
  const doc = reply.body as { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };
  t.regex(doc.openapi, /^3\.0\./);
  const getUser = doc.paths['/users/{user_id}']?.['get'];
  t.deepEqual(getUser?.['parameters'], [
    {
      name: 'user_id',
      in: 'path',
      required: true,
      description: 'The user.',
      schema: { type: 'integer', description: 'The user.' },
    },
    { name: 'include_custom_profile_fields', in: 'query', required: false, schema: { type: 'boolean' } },
  ]);
  const sendMessage = doc.paths['/messages']?.['post'] as unknown as {
    requestBody: { content: Record<string, FormMedia> };
  };
  const form = sendMessage.requestBody.content['application/x-www-form-urlencoded']!;
  t.deepEqual(form.schema.required, ['type', 'to', 'content']);
  t.deepEqual(form.schema.properties['type'], { type: 'string', enum: ['stream', 'channel', 'direct'] });
  t.is(form.encoding['to']?.contentType, 'application/json');
  t.is(form.encoding['narrow']?.contentType, 'application/json');
  t.is(form.encoding['content'], undefined);
  t.deepEqual(doc.paths['/fetch_api_key']?.['post']?.['security'], []);
  t.truthy(doc.paths['/user_uploads']?.['post']?.['requestBody']);
  const unsubscribe = doc.paths['/users/me/subscriptions']?.['delete'] as unknown as {
    parameters: { name: string; in: string; content: Record<string, { schema: unknown }> }[];
  };
  t.like(unsubscribe.parameters[0], { name: 'subscriptions', in: 'query' });
  t.deepEqual(unsubscribe.parameters[0]?.content['application/json']?.schema, {
    type: 'array',
    items: { type: 'string' },
  });
});

test('a body over the limit is a 413 envelope', async (t) => {
  const reply = await call(t.context.baseUrl, 'POST', '/api/v1/messages', {
    auth: IAGO,
    form: { type: 'direct', to: '[9]', content: 'x'.repeat(LIMITS.bodyBytes + 1) },
  });
  t.is(reply.status, 413);
  t.like(reply.body, { result: 'error', code: 'REQUEST_TOO_LARGE' });
});

test('a multipart upload reaches the handler with its file', async (t) => {
  const form = new FormData();
  form.append('file', new Blob(['hello upload'], { type: 'text/plain' }), 'hello.txt');
  const reply = await call(t.context.baseUrl, 'POST', '/api/v1/user_uploads', { auth: IAGO, body: form });
  t.is(reply.status, 200);
  t.deepEqual(reply.body['files'], [{ field: 'file', filename: 'hello.txt', contentType: 'text/plain', size: 12 }]);
  t.deepEqual(reply.body['contents'], ['hello upload']);
});

test('an upload over the upload limit is a 413 envelope', async (t) => {
  const form = new FormData();
  form.append('file', new Blob(['x'.repeat(LIMITS.uploadBytes + 1)]), 'big.bin');
  const reply = await call(t.context.baseUrl, 'POST', '/api/v1/user_uploads', { auth: IAGO, body: form });
  t.is(reply.status, 413);
  t.like(reply.body, { result: 'error', code: 'REQUEST_TOO_LARGE' });
});

test('multipart fields are parameters, as zulip-js sends them; stray files are ignored', async (t) => {
  const form = new FormData();
  form.append('type', 'direct');
  form.append('to', '[9]');
  form.append('content', 'via multipart');
  form.append('attachment', new Blob(['x']), 'x.txt');
  const reply = await call(t.context.baseUrl, 'POST', '/api/v1/messages', { auth: IAGO, body: form });
  t.is(reply.status, 200);
  t.deepEqual(reply.body['params'], { type: 'direct', to: [9], content: 'via multipart' });
  t.deepEqual(reply.body['ignored_parameters_unsupported'], ['attachment']);
});
