import test from 'ava';
import { channel, created, deleteMessage, person, send } from './fixtures.js';

/** `channel.messageCount`: the messages the conversation holds now (a data export's size check). */
test('the count follows sends and deletions; a channel never created holds none', async (t) => {
  t.is((await channel(11).run({ type: 'channel.messageCount' })).reply, 0);
  const author = person(2);
  const kit = channel(10, created(10, [2, 3]));
  const first = ((await kit.run(send(author, 'a'))).reply as { id: number }).id;
  await kit.run(send(author, 'b'));
  t.is((await kit.run({ type: 'channel.messageCount' })).reply, 2);
  const deleted = await kit.run(deleteMessage(author, first));
  t.is(deleted.error, undefined);
  t.is((await kit.run({ type: 'channel.messageCount' })).reply, 1);
});
