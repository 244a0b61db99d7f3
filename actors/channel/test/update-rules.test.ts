import test from 'ava';
import { ROLES, type ChannelChanges } from '@chat/protocol';
import { channel, created, person, realmSettings } from './fixtures.js';

const admin = person(2, ROLES.administrator);

const update = (changes: ChannelChanges, moderation: boolean) => ({
  type: 'channel.update' as const,
  actor: admin,
  changes,
  settings: realmSettings({ enable_spectator_access: true }),
  dry_run: false,
  ...(moderation ? { moderation_request_channel: true } : {}),
});

test('the moderation request channel stays private: made public or web-public it is refused, other changes pass', async (t) => {
  const kit = channel(10, created(10, [2], { invite_only: true }));
  const refusal = 'A moderation request channel cannot be public.';
  t.is((await kit.run(update({ invite_only: false }, true))).error?.message, refusal);
  t.is((await kit.run(update({ invite_only: false, is_web_public: true }, true))).error?.message, refusal);
  const described = await kit.run(update({ description: 'reports' }, true));
  t.is(described.error, undefined);
  t.is(described.events[0]?.type, 'channelUpdated');
  // Any other private channel may become public.
  t.is((await kit.run(update({ invite_only: false }, false))).error, undefined);
});
