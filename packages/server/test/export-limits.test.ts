import { loadConfig } from '../src/index.js';
import { withServer } from './context.js';
import { expectOk, otherRealm } from './matrix-fixtures.js';

/**
 * An organization too large for an automatic data export is refused, as the
 * original's: more public channel messages than EXPORT_MAX_MESSAGES, or more
 * uploaded bytes than EXPORT_MAX_UPLOAD_MIB. Limits of 3 messages and 1 MiB,
 * set through the environment; the address is ZULIP_ADMINISTRATOR's default.
 */
const { exportMaxMessages, exportMaxUploadMib, zulipAdministrator } = loadConfig({
  EXPORT_MAX_MESSAGES: '3',
  EXPORT_MAX_UPLOAD_MIB: '1',
});
const test = withServer(['iago', 'hamlet', 'othello'], { exportMaxMessages, exportMaxUploadMib, zulipAdministrator });

const manual = {
  result: 'error',
  code: 'BAD_REQUEST',
  msg: 'Please request a manual export from zulip-admin@example.com.',
};

test.serial('more public channel messages than the limit: refused; private ones and DMs do not count', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const publicCount = async () => {
    const narrow = JSON.stringify([{ operator: 'channels', operand: 'public' }]);
    const reply = await iago.get<{ messages: unknown[] }>('/messages', {
      anchor: 'newest',
      num_before: 100,
      num_after: 0,
      narrow,
    });
    return reply.body.messages.length;
  };
  const send = (content: string) =>
    expectOk(hamlet.post('/messages', { type: 'stream', to: 'Denmark', topic: 'limits', content }));
  const before = await publicCount();
  t.true(before <= exportMaxMessages);
  for (let i = before; i < exportMaxMessages; i++) await send(`message ${i}`);
  t.is(await publicCount(), 3);
  t.is((await iago.post('/export/realm', {})).status, 200, 'exactly at the limit');

  await expectOk(
    othello.post('/users/me/subscriptions', { subscriptions: '[{"name": "limit secrets"}]', invite_only: true }),
  );
  await expectOk(othello.post('/messages', { type: 'stream', to: 'limit secrets', topic: 'x', content: 'hidden' }));
  await expectOk(hamlet.post('/messages', { type: 'direct', to: '["othello@zulip.com"]', content: 'direct' }));
  t.is(await publicCount(), 3);
  t.is((await iago.post('/export/realm', { export_type: 1 })).status, 200);
  const listed = async () => (await iago.get<{ exports: unknown[] }>('/export/realm')).body.exports.length;
  const exports = await listed();

  await send('one too many');
  for (const params of [{}, { export_type: 1 }, { export_type: 2 }]) {
    const reply = await iago.post('/export/realm', params);
    t.is(reply.status, 400);
    t.deepEqual(reply.body, manual);
  }
  t.is(await listed(), exports, 'a refused export is not recorded');
  t.like((await hamlet.post('/export/realm', {})).body, { code: 'UNAUTHORIZED_PRINCIPAL' });
});

test.serial('more uploaded bytes than the limit: refused', async (t) => {
  const { owner } = await otherRealm(t.context.server);
  const upload = (size: number) =>
    expectOk(owner.client.upload('/user_uploads', [{ name: 'data.bin', data: new Uint8Array(size) }]));
  await upload(1024 * 1024 - 1);
  await upload(1);
  t.is((await owner.client.post('/export/realm', {})).status, 200, 'exactly 1 MiB');
  await upload(1);
  const reply = await owner.client.post('/export/realm', {});
  t.is(reply.status, 400);
  t.deepEqual(reply.body, manual);
});
