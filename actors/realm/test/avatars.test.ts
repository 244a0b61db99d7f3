import test from 'ava';
import { ADMIN, MEMBER, MODERATOR, principal, realm } from './fixtures.js';

/** `realm.setAvatar`: whose avatar one may change, what is journaled, and who hears of it. */

async function memberWithBot() {
  const kit = await realm();
  const made = await kit.run({
    type: 'realm.createBot',
    actor: principal(MEMBER),
    domain: 'zulip.test',
    bot: {
      full_name: 'Pic Bot',
      short_name: 'pic',
      bot_type: 1,
      payload_url: '',
      interface_type: 1,
      default_sending_stream_id: null,
      default_events_register_stream_id: null,
      default_all_public_streams: false,
    },
  });
  if (made.error) throw made.error;
  return { kit, botId: (made.reply as { user_id: number }).user_id };
}

const keysOf = (fanouts: Array<{ keys: string[] }>) => fanouts.map((f) => f.keys.map((k) => k.split(':')[1]).sort());

test("one sets one's own avatar: a new version, kept in the journal, told to everyone", async (t) => {
  const kit = await realm();
  const set = await kit.run({ type: 'realm.setAvatar', actor: principal(MEMBER), user_id: MEMBER, file: '7/a.png' });
  t.deepEqual(set.reply, { avatar_url: '/user_avatars/7/a.png?version=2', previous: null });
  t.like(kit.replay().accounts[MEMBER], { avatarFile: '7/a.png', avatarVersion: 2 });
  // Everyone active, the notification bot (6) too.
  t.deepEqual(keysOf(set.fanouts), [['1', '2', '3', '4', '5', '6']]);
  const back = await kit.run({ type: 'realm.setAvatar', actor: principal(MEMBER), user_id: MEMBER, file: null });
  t.like(back.reply, { previous: '7/a.png' });
  t.regex((back.reply as { avatar_url: string }).avatar_url, /^https:\/\/secure\.gravatar\.com\/.*version=3$/);
  t.is(kit.replay().accounts[MEMBER]!.avatarFile, undefined);
});

test("nobody changes another person's avatar; a bot's is its owner's or an administrator's", async (t) => {
  const { kit, botId } = await memberWithBot();
  const other = await kit.run({ type: 'realm.setAvatar', actor: principal(ADMIN), user_id: MEMBER, file: '7/b.png' });
  t.is(other.error?.message, 'No such bot');
  const moderator = await kit.run({
    type: 'realm.setAvatar',
    actor: principal(MODERATOR),
    user_id: botId,
    file: '7/b.png',
  });
  t.is(moderator.error?.message, 'Insufficient permission');
  const owner = await kit.run({ type: 'realm.setAvatar', actor: principal(MEMBER), user_id: botId, file: '7/c.png' });
  t.is(owner.error, undefined);
  // realm_user to everyone, realm_bot to the owner and the administrators.
  t.deepEqual(keysOf(owner.fanouts)[1], ['1', '2', '4']);
  const admin = await kit.run({ type: 'realm.setAvatar', actor: principal(ADMIN), user_id: botId, file: '7/d.png' });
  t.like(admin.reply, { previous: '7/c.png' });
});
