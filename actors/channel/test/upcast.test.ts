import test from 'ava';
import { channelBehavior } from '../src/index.js';
import { channel, conversation, person, send } from './fixtures.js';

// Journal records as version 1 wrote them: the channel as one flat info object with its subscribers.
const V1_CREATED = JSON.parse(`{
  "type": "channelCreated",
  "info": {
    "channel_id": 10, "name": "general", "description": "Everyone", "date_created": 1735689600,
    "creator_id": 1, "invite_only": false, "is_web_public": false, "history_public_to_subscribers": true,
    "subscribers": [3, 2]
  }
}`);

test('a channel created by version 1 still decodes, with the settings version 2 added at their defaults', async (t) => {
  t.is(channelBehavior.eventVersion, 2);
  const kit = channel(10).given([V1_CREATED], 1);
  t.is(kit.state.kind, 'channel');
  t.deepEqual(kit.state.members, [2, 3]);
  t.like(kit.state.channel, {
    stream_id: 10,
    name: 'general',
    description: 'Everyone',
    topics_policy: 'inherit',
    is_archived: false,
    folder_id: null,
    message_retention_days: null,
  });
  t.is(kit.state.channel?.can_send_message_group, 2, 'permissions at their defaults: everyone may post');
  t.is((await kit.run(send(person(2), 'lunch'))).error, undefined);
  t.deepEqual(kit.replay(), kit.state, 'and the same after replaying both versions');
});

test('other version 1 events pass through unchanged', (t) => {
  const kit = conversation('zulip:dm:2,3').given(
    [
      { type: 'dmOpened', userIds: [2, 3] },
      { type: 'subscribed', userIds: [4] },
    ],
    1,
  );
  t.is(kit.state.kind, 'dm');
  t.deepEqual(kit.state.members, [2, 3, 4]);
});
