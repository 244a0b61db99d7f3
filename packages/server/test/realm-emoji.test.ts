import type { ChatClient } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { PNG } from './permission-cases-emoji.js';
import { next, register, snapshotOf, type Body } from './queues.js';
import { bodyOf, refusal, refused, succeeds } from './replies.js';

/**
 * Custom emoji, as the original: uploaded through the file port, listed,
 * announced in `realm_emoji` events and the register section, used by name
 * in reactions, statuses and messages, and deactivated by an administrator
 * or their author. Othello is a member, Polonius a guest, Iago an administrator.
 */
const test = withServer(['hamlet', 'iago', 'othello', 'cordelia', 'polonius']);

type Emoji = { id: string; name: string; source_url: string; deactivated: boolean; author_id: number | null };

type Part = Parameters<ChatClient['upload']>[1][number];
const upload = (client: ChatClient, name: string, files: Part[] = [PNG]) =>
  client.upload(`/realm/emoji/${name}`, files);
const emojiOf = async (client: ChatClient) =>
  (await succeeds<{ emoji: Record<string, Emoji> }>('GET', '/realm/emoji', client.get('/realm/emoji'))).emoji;
const byName = async (client: ChatClient, name: string) =>
  Object.values(await emojiOf(client)).filter((e) => e.name === name);

test('an uploaded emoji is listed, served, announced and in the register snapshot', async (t) => {
  const { othello, hamlet, server } = t.context;
  const watcher = await register(hamlet, { event_types: JSON.stringify(['realm_emoji']) });
  await succeeds('POST', '/realm/emoji/{emoji_name}', upload(othello, 'party_parrot'));
  const [emoji] = await byName(hamlet, 'party_parrot');
  t.like(emoji, { name: 'party_parrot', deactivated: false, author_id: IDS.othello });
  const image = await fetch(`${server.server.url}${emoji!.source_url}`);
  t.is(image.status, 200);
  t.is(image.headers.get('content-type'), 'image/png');
  t.is(Buffer.from(await image.arrayBuffer()).toString(), PNG.data.toString());
  const event = await next(
    watcher,
    (e) => e.type === 'realm_emoji' && emoji!.id in (e.realm_emoji as Record<string, Emoji>),
  );
  t.like(event, { op: 'update' });
  t.like((event.realm_emoji as Record<string, Emoji>)[emoji!.id], { name: 'party_parrot' });
  const snapshot = await snapshotOf(hamlet, { fetch_event_types: JSON.stringify(['realm_emoji']) });
  t.like((snapshot.realm_emoji as Record<string, Emoji>)[emoji!.id], { name: 'party_parrot' });
});

test('a custom emoji is used in reactions, statuses and messages', async (t) => {
  const { othello, hamlet } = t.context;
  await succeeds('POST', '/realm/emoji/{emoji_name}', upload(othello, 'blob_wave'));
  const [emoji] = await byName(hamlet, 'blob_wave');
  const sent = await bodyOf<{ id: number }>(
    hamlet.post('/messages', { type: 'stream', to: 'Denmark', topic: 'emoji', content: 'hi :blob_wave:' }),
  );
  const message = (await bodyOf<{ message: Body }>(hamlet.get(`/messages/${sent.id}`))).message;
  t.is(message.content, `<p>hi <img alt=":blob_wave:" class="emoji" src="${emoji!.source_url}" title="blob wave"></p>`);
  await bodyOf(othello.post(`/messages/${sent.id}/reactions`, { emoji_name: 'blob_wave' }));
  const reacted = (await bodyOf<{ message: { reactions: Body[] } }>(hamlet.get(`/messages/${sent.id}`))).message;
  t.like(reacted.reactions[0], { emoji_name: 'blob_wave', emoji_code: emoji!.id, reaction_type: 'realm_emoji' });
  await refused(
    t,
    othello.post(`/messages/${sent.id}/reactions`, {
      emoji_name: 'other',
      emoji_code: emoji!.id,
      reaction_type: 'realm_emoji',
    }),
    'Invalid custom emoji name.',
  );
  await refused(
    t,
    othello.post(`/messages/${sent.id}/reactions`, {
      emoji_name: 'blob_wave',
      emoji_code: '999',
      reaction_type: 'realm_emoji',
    }),
    'Invalid custom emoji.',
  );
  await succeeds('POST', '/users/me/status', othello.post('/users/me/status', { emoji_name: 'blob_wave' }));
  const status = await bodyOf<{ status: Body }>(hamlet.get(`/users/${IDS.othello}/status`));
  t.like(status.status, { emoji_name: 'blob_wave', emoji_code: emoji!.id, reaction_type: 'realm_emoji' });
});

test("upload refusals, in the original's words", async (t) => {
  const { othello, iago, polonius } = t.context;
  const names: Array<[string, string]> = [
    ['my_EMoji', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
    ['my_em*oji', 'Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.'],
    ['my_emoji_', 'Emoji names must end with either a letter or digit.'],
    ['%20', 'Emoji name is missing'],
  ];
  for (const [name, msg] of names) await refused(t, upload(iago, name), msg);
  await refused(t, upload(iago, 'two_files', [PNG, { ...PNG, field: 'f2' }]), 'You must upload exactly one file.');
  await refused(
    t,
    upload(iago, 'tiff', [{ name: 'img.tif', type: 'image/tiff', data: PNG.data }]),
    'Invalid image format',
  );
  await refused(t, upload(polonius, 'guest_emoji'), 'Not allowed for guest users');
  await refused(t, upload(othello, 'laughing'), 'Only administrators can override default emoji.');
  await succeeds('POST', '/realm/emoji/{emoji_name}', upload(iago, 'smile'));
  await succeeds('POST', '/realm/emoji/{emoji_name}', upload(othello, 'taken'));
  await refused(t, upload(iago, 'taken'), 'A custom emoji with this name already exists.');
  await refused(
    t,
    upload(othello, 'big', [{ ...PNG, data: Buffer.alloc(5 * 1024 * 1024 + 1) }]),
    'Uploaded file is larger than the allowed limit of 5 MiB',
  );
});

test.serial('adding follows can_add_custom_emoji_group', async (t) => {
  const { othello, iago } = t.context;
  await bodyOf(iago.patch('/realm', { can_add_custom_emoji_group: JSON.stringify({ new: 6 }) }));
  try {
    await refused(t, upload(othello, 'not_allowed'), 'Insufficient permission');
    await succeeds('POST', '/realm/emoji/{emoji_name}', upload(iago, 'allowed_admin'));
  } finally {
    await bodyOf(iago.patch('/realm', { can_add_custom_emoji_group: JSON.stringify({ new: 3 }) }));
  }
});

test('an administrator or the author deactivates an emoji; it can no longer be used, and its name is free', async (t) => {
  const { othello, cordelia, iago, hamlet } = t.context;
  await succeeds('POST', '/realm/emoji/{emoji_name}', upload(othello, 'short_lived'));
  await refused(
    t,
    cordelia.delete('/realm/emoji/short_lived'),
    'Must be an organization administrator or emoji author',
  );
  t.deepEqual(await refusal(iago.delete('/realm/emoji/no_such_emoji')), {
    status: 404,
    result: 'error',
    code: 'BAD_REQUEST',
    msg: "Emoji 'no_such_emoji' does not exist",
  });
  const [emoji] = await byName(hamlet, 'short_lived');
  await succeeds('DELETE', '/realm/emoji/{emoji_name}', othello.delete('/realm/emoji/short_lived'));
  t.like((await emojiOf(hamlet))[emoji!.id], { deactivated: true });
  const sent = await bodyOf<{ id: number }>(
    hamlet.post('/messages', { type: 'stream', to: 'Denmark', topic: 'emoji', content: 'x' }),
  );
  await refused(
    t,
    hamlet.post(`/messages/${sent.id}/reactions`, { emoji_name: 'short_lived' }),
    "Emoji 'short_lived' does not exist",
  );
  await refused(
    t,
    hamlet.post(`/messages/${sent.id}/reactions`, {
      emoji_name: 'short_lived',
      emoji_code: emoji!.id,
      reaction_type: 'realm_emoji',
    }),
    'This custom emoji has been deactivated.',
  );
  await succeeds('POST', '/realm/emoji/{emoji_name}', upload(iago, 'short_lived'));
  t.is((await byName(hamlet, 'short_lived')).length, 2);
  // The administrator removes the new one, which is not theirs to keep.
  await succeeds('DELETE', '/realm/emoji/{emoji_name}', iago.delete('/realm/emoji/short_lived'));
});
