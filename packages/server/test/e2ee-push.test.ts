import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type TestFn } from 'ava';
import { assertResponse, type ChatClient } from '@chat/testkit';
import { register, snapshotOf, take, type Body } from './queues.js';
import { TestServer } from './support.js';

/**
 * E2EE push registration and its test notification, through a push
 * bouncer this test runs on 127.0.0.1: it records what it receives,
 * refuses registrations made with the bouncer key `stale-key`
 * (INVALID_BOUNCER_PUBLIC_KEY), and fails (500) notifications to push
 * account 500.
 */
interface Context {
  server: TestServer;
  bare: TestServer;
  bouncer: Server;
  received: Body[];
  hamlet: ChatClient;
}
const test = anyTest as TestFn<Context>;

test.before(async (t) => {
  const received: Body[] = (t.context.received = []);
  t.context.bouncer = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Body;
      received.push({ path: req.url, ...body });
      const [status, answer] =
        req.url === '/push/e2ee/register' && body.bouncer_public_key === 'stale-key'
          ? [400, { result: 'error', code: 'INVALID_BOUNCER_PUBLIC_KEY', msg: 'Invalid bouncer public key' }]
          : req.url === '/push/e2ee/notify' && body.push_account_id === 500
            ? [500, { result: 'error', msg: 'oops' }]
            : [200, { result: 'success', msg: '' }];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => t.context.bouncer.listen(0, '127.0.0.1', resolve));
  const { port } = t.context.bouncer.address() as AddressInfo;
  t.context.server = await TestServer.start({ pushBouncerUrl: `http://127.0.0.1:${port}/push/notify` });
  t.context.bare = await TestServer.start();
  t.context.hamlet = await t.context.server.login('hamlet@zulip.com');
});
test.after.always(async (t) => {
  await t.context.server?.stop();
  await t.context.bare?.stop();
  await new Promise((resolve) => t.context.bouncer?.close(resolve));
});

const KEY = Buffer.alloc(32, 7).toString('base64');
const registration = (push_account_id: number, bouncer_public_key = 'bouncer-key-1') => ({
  token_kind: 'fcm',
  push_account_id,
  push_public_key: KEY,
  bouncer_public_key,
  encrypted_push_registration: Buffer.from(`sealed ${push_account_id}`).toString('base64'),
});
const TEST = '/mobile_push/e2ee/test_notification';

test.serial('a registered device becomes active and gets the test notification', async (t) => {
  const { hamlet, received } = t.context;
  const queue = await register(hamlet, { event_types: ['push_device'] });
  const reply = await hamlet.post('/mobile_push/register', registration(2408));
  assertResponse('POST', '/mobile_push/register', reply.status, reply.body);
  t.is(reply.status, 200);
  const event = await take(queue, (e) => e.type === 'push_device' && e.push_account_id === '2408');
  t.like(event, { status: 'active' });
  const sent = received.find((r) => r.path === '/push/e2ee/register' && r.push_account_id === 2408);
  t.like(sent, { realm: 'zulip', token_kind: 'fcm', bouncer_public_key: 'bouncer-key-1' });
  t.false('push_public_key' in sent!);
  const snapshot = await snapshotOf(hamlet, { fetch_event_types: ['push_device'] });
  t.deepEqual((snapshot.push_devices as Body)['2408'], { status: 'active', error_code: null });

  const notified = await hamlet.post(TEST, { push_account_id: 2408 });
  assertResponse('POST', TEST, notified.status, notified.body);
  t.is(notified.status, 200);
  const notification = received.find((r) => r.path === '/push/e2ee/notify' && r.push_account_id === 2408);
  t.like(notification, { push_public_key: KEY, payload: { event: 'test', realm_name: 'Zulip Dev', user_id: 10 } });
});

test.serial('a refused registration fails with the bouncer code; nothing to notify', async (t) => {
  const { hamlet } = t.context;
  const queue = await register(hamlet, { event_types: ['push_device'] });
  t.is((await hamlet.post('/mobile_push/register', registration(77, 'stale-key'))).status, 200);
  const event = await take(queue, (e) => e.type === 'push_device' && e.push_account_id === '77');
  t.like(event, { status: 'failed', error_code: 'INVALID_BOUNCER_PUBLIC_KEY' });
  const reply = await hamlet.post(TEST, { push_account_id: 77 });
  assertResponse('POST', TEST, reply.status, reply.body);
  t.like(reply.body, { code: 'NO_ACTIVE_PUSH_DEVICE', msg: 'No active registered push device' });
  t.like((await hamlet.post(TEST, { push_account_id: 31337 })).body, { code: 'NO_ACTIVE_PUSH_DEVICE' });
});

test.serial('a failing bouncer is a 502', async (t) => {
  const { hamlet } = t.context;
  const queue = await register(hamlet, { event_types: ['push_device'] });
  await hamlet.post('/mobile_push/register', registration(500));
  await take(queue, (e) => e.type === 'push_device' && e.push_account_id === '500');
  const reply = await hamlet.post(TEST, { push_account_id: 500 });
  t.is(reply.status, 502);
  assertResponse('POST', TEST, reply.status, reply.body);
  t.like(reply.body, {
    code: 'INTERNAL_SERVER_ERROR_ON_BOUNCER',
    msg: 'Internal server error on Zulip push notification service, retry later.',
  });
});

test.serial('keys are taken as they are, as the original takes them; registering again changes nothing', async (t) => {
  const { hamlet, received } = t.context;
  const queue = await register(hamlet, { event_types: ['push_device'] });
  const odd = { ...registration(9), push_public_key: 'not base64!', encrypted_push_registration: '%%%' };
  const reply = await hamlet.post('/mobile_push/register', odd);
  assertResponse('POST', '/mobile_push/register', reply.status, reply.body);
  t.is(reply.status, 200);
  t.like(await take(queue, (e) => e.type === 'push_device' && e.push_account_id === '9'), { status: 'active' });
  const sent = () => received.filter((r) => r.path === '/push/e2ee/register' && r.push_account_id === 9).length;
  t.is(sent(), 1);
  t.is((await hamlet.post('/mobile_push/register', registration(9))).status, 200);
  // A later registration's answer: the bouncer would have had account 9's again before it.
  await hamlet.post('/mobile_push/register', registration(10));
  await take(queue, (e) => e.type === 'push_device' && e.push_account_id === '10');
  t.is(sent(), 1, 'an account registered without an error is not registered again');
});

test('without a bouncer nothing is registered', async (t) => {
  const { bare } = t.context;
  const plain = await bare.login('hamlet@zulip.com');
  for (const reply of [await plain.post('/mobile_push/register', registration(9)), await plain.post(TEST, {})]) {
    assertResponse('POST', '/mobile_push/register', reply.status, reply.body);
    t.like(reply.body, {
      code: 'PUSH_SERVICE_NOT_CONFIGURED',
      msg: 'Server is not configured to use push notification service.',
    });
  }
});
