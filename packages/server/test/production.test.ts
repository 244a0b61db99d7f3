import test from 'ava';
import { TestServer } from './support.js';

test('production mode refuses dev_fetch_api_key and creates no development realm', async (t) => {
  const server = await TestServer.start({ mode: 'production' });
  t.teardown(() => server.stop());
  const reply = await server.client.post('/dev_fetch_api_key', { username: 'iago@zulip.com' });
  t.is(reply.status, 400);
  t.deepEqual(reply.body, { result: 'error', msg: 'Endpoint not available in production.', code: 'BAD_REQUEST' });
  const settings = await server.client.get('/server_settings');
  t.is(settings.status, 404);
  t.is(settings.body.code, 'NONEXISTENT_SUBDOMAIN');
});

test('a development realm served in production mode still refuses dev_fetch_api_key', async (t) => {
  const dev = await TestServer.start();
  await dev.server.close();
  const prod = await TestServer.start({ mode: 'production', dataDir: dev.dir });
  t.teardown(() => prod.stop());
  const reply = await prod.client.post('/dev_fetch_api_key', { username: 'iago@zulip.com' });
  t.is(reply.status, 400);
  t.is(reply.body.msg, 'Endpoint not available in production.');
  const settings = await prod.client.get<{ authentication_methods: { dev: boolean } }>('/server_settings');
  t.false(settings.body.authentication_methods.dev);
});
