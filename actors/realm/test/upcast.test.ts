import test from 'ava';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { realmBehavior } from '../src/index.js';

// Journal records as version 1 wrote them, including shapes from before a field existed.
const V1 = JSON.parse(`[
  {"type": "realmCreated", "id": 7, "name": "Zulip", "description": "", "development": false,
   "webPublicAccessEnabled": false, "at": 1735689600, "firstUserId": 1},
  {"type": "accountCreated", "account": {"id": 1, "email": "Iago@zulip.test", "fullName": "Iago", "role": 100,
   "isActive": true, "dateJoined": 1735689600, "apiKey": "k1", "passwordHash": null, "botType": null,
   "botOwnerId": null, "timezone": "", "avatarVersion": 1}},
  {"type": "channelRegistered", "channelId": 4, "name": "Denmark"}
]`);

test('records of version 1 still decode: a channel registered before the directory kept entries gets one', async (t) => {
  const kit = new BehaviorTestKit(realmBehavior, { key: 'zulip' }).given(V1, 1);
  t.is(kit.state.accounts[1]?.email, 'Iago@zulip.test');
  t.is(kit.state.byEmail['iago@zulip.test'], 1);
  t.deepEqual(kit.state.channels[4], {
    channel_id: 4,
    name: 'Denmark',
    invite_only: false,
    is_web_public: false,
    is_archived: false,
    is_default: false,
  });
  t.is(kit.state.settings.topics_policy, 'allow_empty_topic', 'settings at their defaults');
  t.is(kit.state.nextChannelId, 5);
  t.is((await kit.run({ type: 'realm.info' })).error, undefined);
});

test('a record of a version the realm cannot read is refused, not misread', (t) => {
  t.is(realmBehavior.eventVersion, 1);
  t.throws(() => new BehaviorTestKit(realmBehavior, { key: 'zulip' }).given(V1, 2), { message: /no upcast/ });
});

test('direct-message group settings a snapshot kept among the options are read by the messaging rules', async (t) => {
  const kit = new BehaviorTestKit(realmBehavior, { key: 'zulip' }).given(V1, 1);
  // A snapshot written before these settings were among the ones sent with commands.
  const settings = kit.state.settings as unknown as Record<string, unknown>;
  delete settings.direct_message_permission_group;
  delete settings.direct_message_initiator_group;
  kit.state.options = { direct_message_permission_group: 8, digest_weekday: 3 };
  kit.activate();
  const reply = (await kit.run({ type: 'realm.settings' })).reply as Record<string, unknown>;
  t.is(reply.direct_message_permission_group, 8);
  t.is(reply.direct_message_initiator_group, 2, 'the default when never changed');
  t.deepEqual(kit.state.options, { digest_weekday: 3 });
});
