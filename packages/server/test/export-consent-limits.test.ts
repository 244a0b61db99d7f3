import { loadConfig } from '../src/index.js';
import { withServer } from './context.js';
import { expectOk } from './matrix-fixtures.js';

/**
 * The size check of a full export with consent counts what that export
 * writes: the public channels' messages, and the private channels' and
 * direct messages of those who set `allow_private_data_export` (the
 * original counts every message for it). A public export still counts only
 * public channels (export-limits.test.ts). A limit of 3 messages, on a
 * server of its own: that file's realm ends over the limit.
 */
const { exportMaxMessages, exportMaxUploadMib, zulipAdministrator } = loadConfig({ EXPORT_MAX_MESSAGES: '3' });
const test = withServer(['iago', 'hamlet', 'othello'], { exportMaxMessages, exportMaxUploadMib, zulipAdministrator });

test.serial(
  'a consenting user’s private channel and direct messages count towards a full export’s limit',
  async (t) => {
    const { iago, hamlet, othello } = t.context;
    const narrow = JSON.stringify([{ operator: 'channels', operand: 'public' }]);
    const publicCount = async () =>
      (
        await expectOk(
          iago.get<{ messages: unknown[] }>('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow }),
        )
      ).messages.length;
    for (let i = await publicCount(); i < exportMaxMessages; i++) {
      await expectOk(
        hamlet.post('/messages', { type: 'stream', to: 'Denmark', topic: 'limits', content: `public ${i}` }),
      );
    }
    t.is(await publicCount(), 3);
    // Hamlet writes to Iago directly; Othello alone in a private channel.
    await expectOk(hamlet.post('/messages', { type: 'direct', to: '["iago@zulip.com"]', content: 'direct' }));
    await expectOk(
      othello.post('/users/me/subscriptions', { subscriptions: '[{"name": "consent secrets"}]', invite_only: true }),
    );
    await expectOk(othello.post('/messages', { type: 'stream', to: 'consent secrets', topic: 'x', content: 'hidden' }));
    const full = () => iago.post('/export/realm', { export_type: 2 });
    const consent = (who: typeof hamlet, on: boolean) =>
      expectOk(who.patch('/settings', { allow_private_data_export: on }));
    const manual = {
      result: 'error',
      code: 'BAD_REQUEST',
      msg: 'Please request a manual export from zulip-admin@example.com.',
    };

    t.is((await full()).status, 200, 'no one consents: only the public messages would be written');
    await consent(hamlet, true);
    t.like(await full(), { status: 400, body: manual }, 'his direct message makes 4');
    t.is((await iago.post('/export/realm', { export_type: 1 })).status, 200, 'a public export writes 3');
    await consent(hamlet, false);
    await consent(othello, true);
    t.like(await full(), { status: 400, body: manual }, 'his private channel makes 4');
  },
);
