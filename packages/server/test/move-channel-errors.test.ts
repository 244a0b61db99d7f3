import { SYSTEM_GROUPS } from '@chat/protocol';
import { IDS, withServer } from './context.js';
import { channel, messagesIn, move, send, topicOf } from './move-support.js';
import { call, ok, refused } from './replies.js';

/**
 * Who may move messages to another channel, and what a refusal says; a
 * refused move leaves the message where it was. Also: uploads linked by a
 * moved message stay readable to the readers of its new channel.
 */
const test = withServer(['iago', 'hamlet', 'othello', 'polonius']);

test('a guest is outside can_move_messages_between_channels_group', async (t) => {
  const { iago, polonius } = t.context;
  const a = await channel(iago, 'mv guest a', [IDS.iago, IDS.polonius]);
  const b = await channel(iago, 'mv guest b', [IDS.iago, IDS.polonius]);
  const id = await send(polonius, a, 'mine', 'from a guest');
  await refused(t, move(polonius, id, { stream_id: b }), "You don't have permission to move this message");
  // The channel-level permission grants what the realm's group does not.
  await ok(iago, 'PATCH', `/streams/${a}`, {
    can_move_messages_out_of_channel_group: JSON.stringify({ new: SYSTEM_GROUPS['role:everyone'] }),
  });
  await ok(polonius, 'PATCH', `/messages/${id}`, { stream_id: b, send_notification_to_new_thread: false });
  t.deepEqual(
    (await messagesIn(polonius, topicOf(b, 'mine'))).map((m) => m.id),
    [id],
  );
});

test('the destination must be one the mover can post to', async (t) => {
  const { iago, hamlet } = t.context;
  const a = await channel(iago, 'mv dest a', [IDS.iago, IDS.hamlet]);
  const id = await send(hamlet, a, 'stay', 'stays put');
  const secret = await channel(iago, 'mv dest secret', [IDS.iago], { invite_only: true });
  const archived = await channel(iago, 'mv dest archived', [IDS.iago, IDS.hamlet]);
  await ok(iago, 'DELETE', `/streams/${archived}`);
  const closed = await channel(iago, 'mv dest closed', [IDS.iago, IDS.hamlet]);
  await ok(iago, 'PATCH', `/streams/${closed}`, {
    can_send_message_group: JSON.stringify({ new: SYSTEM_GROUPS['role:administrators'] }),
  });
  await refused(t, move(hamlet, id, { stream_id: secret }), 'Invalid channel ID');
  await refused(t, move(hamlet, id, { stream_id: archived }), 'Invalid channel ID');
  await refused(t, move(hamlet, id, { stream_id: 999_999 }), 'Invalid channel ID');
  await refused(t, move(hamlet, id, { stream_id: closed }), 'You do not have permission to post in this channel.');
  t.deepEqual(
    (await messagesIn(hamlet, topicOf(a, 'stay'))).map((m) => m.id),
    [id],
  );
});

test('content with stream_id, and direct messages, are refused', async (t) => {
  const { iago, hamlet } = t.context;
  const a = await channel(iago, 'mv bad a', [IDS.iago, IDS.hamlet]);
  const b = await channel(iago, 'mv bad b', [IDS.iago, IDS.hamlet]);
  const id = await send(hamlet, a, 't', 'x');
  await refused(
    t,
    move(hamlet, id, { stream_id: b, content: 'y' }),
    'Cannot change message content while changing channel',
  );
  const dm = (await ok(hamlet, 'POST', '/messages', { type: 'direct', to: JSON.stringify([IDS.iago]), content: 'hi' }))
    .id as number;
  await refused(t, move(hamlet, dm, { stream_id: b }), 'Direct messages cannot be moved to channels.');
});

test('an upload linked by a moved message stays readable in its new channel', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const a = await channel(iago, 'mv file a', [IDS.iago, IDS.hamlet], { invite_only: true });
  const b = await channel(iago, 'mv file b', [IDS.iago, IDS.hamlet, IDS.othello], { invite_only: true });
  const uploaded = await hamlet.upload<{ url: string }>('/user_uploads', [
    { name: 'moved.txt', data: Buffer.from('carried along'), type: 'text/plain' },
  ]);
  t.is(uploaded.status, 200);
  const id = await send(hamlet, a, 'files', `[moved.txt](${uploaded.body.url})`);
  const download = async () => (await othello.fetch('GET', uploaded.body.url)).status;
  // Not a reader of the linking message yet: the file exists, so 403 (the original's serve_file).
  t.is(await download(), 403);
  await ok(iago, 'PATCH', `/messages/${id}`, { stream_id: b, send_notification_to_new_thread: false });
  t.is(await download(), 200);
  const reply = await call(othello, 'GET', `/messages/${id}`);
  t.is(reply.status, 200);
});
