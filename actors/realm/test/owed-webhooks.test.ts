import test from 'ava';
import { realm } from './fixtures.js';

test('owed outgoing webhook calls are journaled, claimed by age and removed once done', async (t) => {
  const kit = await realm();
  const owe = await kit.run({
    type: 'realm.oweWebhooks',
    owed: [
      { message_id: 7, bot_id: 3, trigger: 'mention' },
      { message_id: 7, bot_id: 4, trigger: 'mention' },
    ],
  });
  t.is(owe.error, undefined);
  kit.now += 1000;
  await kit.run({ type: 'realm.oweWebhooks', owed: [{ message_id: 8, bot_id: 3, trigger: 'direct_message' }] });
  const older = await kit.run({ type: 'realm.claimOwedWebhooks', before: kit.now });
  t.deepEqual(
    (older.reply as Array<{ message_id: number; bot_id: number }>).map((o) => [o.message_id, o.bot_id]),
    [
      [7, 3],
      [7, 4],
    ],
  );
  const claimedAgain = await kit.run({ type: 'realm.claimOwedWebhooks', before: kit.now });
  t.deepEqual(claimedAgain.reply, [], 'a claim stamps them: no other edge claims them at once');
  await kit.run({ type: 'realm.webhookDone', message_id: 7, bot_id: 3 });
  const again = await kit.run({ type: 'realm.webhookDone', message_id: 7, bot_id: 3 });
  t.deepEqual(again.events, [], 'done twice changes nothing');
  // What is owed comes back from the journal alone.
  t.deepEqual(Object.keys(kit.replay().owedWebhooks ?? {}).sort(), ['7:4', '8:3']);
  const all = await kit.run({ type: 'realm.claimOwedWebhooks', before: kit.now + 1 });
  t.like(all.reply, [
    { message_id: 7, bot_id: 4, trigger: 'mention' },
    { message_id: 8, bot_id: 3, trigger: 'direct_message' },
  ]);
});
