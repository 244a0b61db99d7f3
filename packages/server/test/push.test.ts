import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type TestFn } from 'ava';
import type { ChatClient } from '@chat/testkit';
import { userId } from './context.js';
import { fails, succeeds, type Body } from './replies.js';
import { TestServer } from './support.js';

/**
 * Legacy push registration (operations 14 and 15) and the test notification
 * (operation 17), delivered through a push bouncer that this test runs
 * itself on 127.0.0.1: it records what it receives, does not know tokens
 * starting with `forgotten`, and fails for tokens starting with `broken`.
 */
interface Context {
  server: TestServer;
  /** A server without PUSH_BOUNCER_URL: push notifications are not configured. */
  bare: TestServer;
  bouncer: Server;
  received: Body[];
}
const test = anyTest as TestFn<Context>;

function startBouncer(received: Body[]): Promise<Server> {
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Body & { token: string };
      received.push({ path: req.url, contentType: req.headers['content-type'], ...body });
      const [status, answer] = body.token.startsWith('forgotten')
        ? [400, { result: 'error', code: 'INVALID_REMOTE_PUSH_DEVICE_TOKEN', msg: 'Device not recognized' }]
        : body.token.startsWith('broken')
          ? [500, { result: 'error', msg: 'oops' }]
          : [200, { result: 'success', msg: '' }];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

test.before(async (t) => {
  t.context.received = [];
  t.context.bouncer = await startBouncer(t.context.received);
  const { port } = t.context.bouncer.address() as AddressInfo;
  t.context.server = await TestServer.start({ pushBouncerUrl: `http://127.0.0.1:${port}/push/notify` });
  t.context.bare = await TestServer.start();
});
test.after.always(async (t) => {
  await t.context.server?.stop();
  await t.context.bare?.stop();
  await new Promise((resolve) => t.context.bouncer?.close(resolve));
});

const APNS = '/users/me/apns_device_token';
const FCM = '/users/me/android_gcm_reg_id';
const TEST = '/mobile_push/test_notification';
const sentTo = (received: Body[], token: string) => received.filter((r) => r.token === token);

test('a registered APNs token gets the test notification through the bouncer', async (t) => {
  const hamlet = await t.context.server.login('hamlet@zulip.com');
  const token = 'c0ffee0123456789';
  await succeeds('POST', APNS, hamlet.post(APNS, { token, appid: 'org.zulip.Zulip' }));
  await succeeds('POST', TEST, hamlet.post(TEST, { token }));
  const [sent] = sentTo(t.context.received, token);
  t.like(sent, {
    path: '/push/notify',
    contentType: 'application/json',
    realm: 'zulip',
    user_id: await userId(hamlet),
    token_kind: 'apns',
    appid: 'org.zulip.Zulip',
  });
  t.like(sent!.payload, { event: 'test', user_id: await userId(hamlet), realm_name: 'Zulip Dev' });
});

test('without a token, every device of the caller is notified, and only theirs', async (t) => {
  const othello = await t.context.server.login('othello@zulip.com');
  const cordelia = await t.context.server.login('cordelia@zulip.com');
  await succeeds('POST', APNS, othello.post(APNS, { token: 'abcdef01', appid: 'org.zulip.Zulip' }));
  await succeeds('POST', FCM, othello.post(FCM, { token: 'othello-android' }));
  await succeeds('POST', FCM, cordelia.post(FCM, { token: 'cordelia-android' }));
  await succeeds('POST', TEST, othello.post(TEST));
  t.like(sentTo(t.context.received, 'abcdef01')[0], { token_kind: 'apns' });
  t.like(sentTo(t.context.received, 'othello-android')[0], { token_kind: 'fcm', user_id: await userId(othello) });
  t.false('appid' in sentTo(t.context.received, 'othello-android')[0]!);
  t.deepEqual(sentTo(t.context.received, 'cordelia-android'), []);
});

test("a token the server does not know, or another user's, is INVALID_PUSH_DEVICE_TOKEN", async (t) => {
  const prospero = await t.context.server.login('prospero@zulip.com');
  const zoe = await t.context.server.login('ZOE@zulip.com');
  await succeeds('POST', FCM, prospero.post(FCM, { token: 'prospero-android' }));
  const unknown = 'Device not recognized';
  await fails(t, zoe.post(TEST, { token: 'prospero-android' }), 'INVALID_PUSH_DEVICE_TOKEN', unknown, ['POST', TEST]);
  await fails(t, zoe.post(TEST, { token: 'never-registered' }), 'INVALID_PUSH_DEVICE_TOKEN', unknown, ['POST', TEST]);
  t.deepEqual(sentTo(t.context.received, 'prospero-android'), []);
});

test('a token the bouncer does not know is INVALID_REMOTE_PUSH_DEVICE_TOKEN; a failing bouncer is an error', async (t) => {
  const aaron = await t.context.server.login('AARON@zulip.com');
  await succeeds('POST', FCM, aaron.post(FCM, { token: 'forgotten-android' }));
  const remote = 'Device not recognized by the push bouncer';
  const reply = aaron.post(TEST, { token: 'forgotten-android' });
  await fails(t, reply, 'INVALID_REMOTE_PUSH_DEVICE_TOKEN', remote, ['POST', TEST]);
  t.is(sentTo(t.context.received, 'forgotten-android').length, 1);
  await succeeds('POST', FCM, aaron.post(FCM, { token: 'broken-android' }));
  // A bouncer answering 5xx: the original's INTERNAL_SERVER_ERROR_ON_BOUNCER (502), as for E2EE push.
  const broken = 'Internal server error on Zulip push notification service, retry later.';
  const failing = await aaron.post(TEST, { token: 'broken-android' });
  t.is(failing.status, 502);
  t.like(failing.body, { result: 'error', code: 'INTERNAL_SERVER_ERROR_ON_BOUNCER', msg: broken });
});

test('token checks: empty, too long, not base64 for APNs, appid required and a bundle id', async (t) => {
  const shiva = await t.context.server.login('shiva@zulip.com');
  const length = 'Empty or invalid length token';
  await fails(t, shiva.post(APNS, { token: '', appid: 'org.zulip.Zulip' }), 'BAD_REQUEST', length, ['POST', APNS]);
  const long = 'ab'.repeat(2049);
  await fails(t, shiva.post(APNS, { token: long, appid: 'org.zulip.Zulip' }), 'BAD_REQUEST', length, ['POST', APNS]);
  const notHex = shiva.post(APNS, { token: 'not-hex', appid: 'org.zulip.Zulip' });
  await fails(t, notHex, 'BAD_REQUEST', 'Invalid APNS token', ['POST', APNS]);
  // As the original's b64_to_hex decodes them: whole groups of four, padded, ASCII.
  for (const token of ['abcde', 'abc', 'ab=', 'abcd\u00e9']) {
    await fails(t, shiva.post(APNS, { token, appid: 'org.zulip.Zulip' }), 'BAD_REQUEST', 'Invalid APNS token');
  }
  for (const token of ['zzzz', 'ab==', 'abc=', 'c0ffee==']) {
    t.is((await shiva.post(APNS, { token, appid: 'org.zulip.Zulip' })).status, 200, token);
    t.is((await shiva.delete(APNS, { token })).status, 200, token);
  }
  await fails(t, shiva.post(FCM, { token: '' }), 'BAD_REQUEST', length, ['POST', FCM]);
  const missing = await shiva.post(APNS, { token: 'c0ffee' });
  t.like(missing.body, { code: 'REQUEST_VARIABLE_MISSING', var_name: 'appid' });
  // The app id is a bundle id (letters, digits, dots, dashes), checked before the token.
  for (const appid of ['', ' ', 'org.zulip.Zulip ', 'org/zulip', 'org_zulip', 'org.zülip']) {
    await fails(t, shiva.post(APNS, { token: 'not-hex', appid }), 'BAD_REQUEST', 'Invalid app ID');
  }
  t.is((await shiva.post(APNS, { token: 'c0ffee00', appid: 'com.example-App.2' })).status, 200);
  t.is((await shiva.delete(APNS, { token: 'c0ffee00' })).status, 200);
  // Nothing was registered by the refused requests.
  await fails(t, shiva.post(TEST, { token: 'not-hex' }), 'INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized');
});

test('removing a token: it is no longer notified; an unknown token does not exist', async (t) => {
  const desdemona = await t.context.server.login('desdemona@zulip.com');
  const iago = await t.context.server.login('iago@zulip.com');
  await succeeds('POST', APNS, desdemona.post(APNS, { token: 'deadbeef', appid: 'org.zulip.Zulip' }));
  await succeeds('POST', FCM, desdemona.post(FCM, { token: 'desdemona-android' }));
  const gone = 'Token does not exist';
  // Another user cannot remove it, nor can the wrong kind of removal.
  await fails(t, iago.delete(APNS, { token: 'deadbeef' }), 'BAD_REQUEST', gone, ['DELETE', APNS]);
  await fails(t, desdemona.delete(FCM, { token: 'deadbeef' }), 'BAD_REQUEST', gone, ['DELETE', FCM]);
  await succeeds('DELETE', APNS, desdemona.delete(APNS, { token: 'deadbeef' }));
  await fails(t, desdemona.post(TEST, { token: 'deadbeef' }), 'INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized');
  await fails(t, desdemona.delete(APNS, { token: 'deadbeef' }), 'BAD_REQUEST', gone, ['DELETE', APNS]);
  await succeeds('DELETE', FCM, desdemona.delete(FCM, { token: 'desdemona-android' }));
  await succeeds('POST', TEST, desdemona.post(TEST));
  t.deepEqual(sentTo(t.context.received, 'deadbeef'), []);
  t.deepEqual(sentTo(t.context.received, 'desdemona-android'), []);
});

test('without a push bouncer, the test notification says the server is not configured for push', async (t) => {
  const hamlet: ChatClient = await t.context.bare.login('hamlet@zulip.com');
  await succeeds('POST', FCM, hamlet.post(FCM, { token: 'bare-android' }));
  const msg = 'Server is not configured to use push notification service.';
  await fails(t, hamlet.post(TEST, { token: 'bare-android' }), 'PUSH_SERVICE_NOT_CONFIGURED', msg);
  await fails(t, hamlet.post(TEST), 'PUSH_SERVICE_NOT_CONFIGURED', msg);
});
