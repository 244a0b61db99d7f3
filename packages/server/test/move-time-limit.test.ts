import { IDS, withServer } from './context.js';
import { channel, messagesIn, move, send, topicOf } from './move-support.js';
import { ok } from './replies.js';

/**
 * The realm's time limits: message_content_edit_limit_seconds (ten
 * minutes), move_messages_within_stream_limit_seconds and
 * move_messages_between_streams_limit_seconds (a week each by default; no
 * route changes realm settings yet). The server runs in this
 * test's process (ava gives each file its own), so the test moves the
 * clock a week and a day ahead instead of waiting: `Date.now` is what every
 * actor reads as the time. Nothing here depends on real time passing.
 */
const test = withServer(['iago', 'hamlet', 'shiva']);

const realNow = Date.now.bind(Date);
let shiftMs = 0;
Date.now = () => realNow() + shiftMs;

test.after.always(() => {
  Date.now = realNow;
});

test.serial('past the limit, members may not move old messages; moderators may', async (t) => {
  const { iago, hamlet, shiva } = t.context;
  const members = [IDS.iago, IDS.hamlet, IDS.shiva];
  const [a, b] = [await channel(iago, 'mv limit a', members), await channel(iago, 'mv limit b', members)];
  const old = await send(hamlet, a, 'aging', 'from last week');
  shiftMs = 8 * 24 * 3600 * 1000;
  const recent = await send(hamlet, a, 'aging', 'from today');

  const one = await move(hamlet, old, { stream_id: b });
  t.like(one.body, {
    code: 'BAD_REQUEST',
    msg: "The time limit for editing this message's channel has passed",
  });
  const all = await move(hamlet, recent, { stream_id: b, propagate_mode: 'change_all' });
  t.is(all.status, 400);
  t.like(all.body, {
    result: 'error',
    code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
    msg: 'You only have permission to move the 1/2 most recent messages in this topic.',
    first_message_id_allowed_to_move: recent,
    total_messages_in_topic: 2,
    total_messages_allowed_to_move: 1,
  });
  t.deepEqual(
    (await messagesIn(hamlet, topicOf(a, 'aging'))).map((m) => m.id),
    [old, recent],
  );

  // What the error offers: moving from the first allowed message on.
  await ok(hamlet, 'PATCH', `/messages/${recent}`, {
    stream_id: b,
    propagate_mode: 'change_later',
    send_notification_to_new_thread: false,
  });
  // Moderators are not limited.
  await ok(shiva, 'PATCH', `/messages/${old}`, { stream_id: b, send_notification_to_new_thread: false });
  t.deepEqual(
    (await messagesIn(hamlet, topicOf(b, 'aging'))).map((m) => m.id),
    [old, recent],
  );
});

test.serial('past ten minutes a member may not edit content; past a week not move the topic either', async (t) => {
  const { iago, hamlet } = t.context;
  const base = shiftMs;
  const room = await channel(iago, 'edit limit', [IDS.iago, IDS.hamlet]);
  const id = await send(hamlet, room, 'draft', 'first words');
  shiftMs = base + 11 * 60 * 1000;
  const edit = await move(hamlet, id, { content: 'second thoughts' });
  t.is(edit.status, 400);
  t.like(edit.body, { code: 'BAD_REQUEST', msg: 'The time limit for editing this message has passed' });
  // Moving the topic has the week of move_messages_within_stream_limit_seconds.
  await ok(hamlet, 'PATCH', `/messages/${id}`, { topic: 'kept', send_notification_to_old_thread: false });
  shiftMs = base + 8 * 24 * 3600 * 1000;
  const late = await move(hamlet, id, { topic: 'too late' });
  t.like(late.body, { code: 'BAD_REQUEST', msg: "The time limit for editing this message's topic has passed." });
  // Administrators are not limited for topics.
  const quiet = { send_notification_to_old_thread: false, send_notification_to_new_thread: false };
  await ok(iago, 'PATCH', `/messages/${id}`, { topic: 'moved by admin', ...quiet });
  t.deepEqual(
    (await messagesIn(hamlet, topicOf(room, 'moved by admin'))).map((m) => m.id),
    [id],
  );
});
