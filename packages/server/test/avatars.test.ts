import type { ChatClient } from '@chat/testkit';
import { IDS, withServer } from './context.js';
import { AVATAR_PNG } from './permission-cases-own-account.js';
import { next, register, snapshotOf, take, type Event } from './queues.js';
import { bodyOf, refused, succeeds } from './replies.js';

/**
 * Avatars, as the original: one uploaded image (at most 5 MiB) replaces
 * the gravatar, bumps `avatar_version`, is announced in `realm_user` (and
 * `realm_bot` for a bot) and served publicly at the URL given; deleting it
 * goes back to the gravatar. Hamlet and Othello are members, Iago an administrator.
 */
const test = withServer(['hamlet', 'iago', 'othello']);

type Person = { user_id: number; avatar_url: string | null; avatar_version: number };
const GIF = { name: 'a.gif', type: 'image/gif', data: Buffer.from('GIF89a another avatar') };

const avatarOf = async (viewer: ChatClient, userId: number) =>
  (await succeeds<{ user: Person }>('GET', '/users/{user_id}', viewer.get(`/users/${userId}`))).user;
const served = async (client: ChatClient, url: string) => client.fetch('GET', `/${url}`);
const aboutAvatar = (type: string, id: number) => (e: Event) => {
  const subject = (e.person ?? e.bot) as { user_id: number; avatar_url?: string } | undefined;
  return e.type === type && e.op === 'update' && subject?.user_id === id && subject.avatar_url !== undefined;
};

/** A multipart PATCH, as a client changing a bot's avatar sends it. */
async function patchWithFile(client: ChatClient, path: string, file: typeof AVATAR_PNG) {
  const form = new FormData();
  form.append('file', new Blob([file.data], { type: file.type }), file.name);
  const response = await client.fetch('PATCH', path, { body: form });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

test.serial('an uploaded avatar is served, announced, shown everywhere, and deleted again', async (t) => {
  const { hamlet, othello } = t.context;
  const before = await avatarOf(othello, IDS.hamlet);
  const watcher = await register(othello, { event_types: JSON.stringify(['realm_user']) });
  const up = await bodyOf<{ avatar_url: string }>(hamlet.upload('/users/me/avatar', [AVATAR_PNG]));
  t.regex(
    up.avatar_url,
    new RegExp(`^/user_avatars/\\d+/[A-Za-z0-9_-]+\\.png\\?version=${before.avatar_version + 1}$`),
  );

  // Public, as the original's /user_avatars/: no credentials needed.
  const image = await fetch(new URL(up.avatar_url, othello.baseUrl));
  t.is(image.status, 200);
  t.is(image.headers.get('content-type'), 'image/png');
  t.deepEqual(Buffer.from(await image.arrayBuffer()), AVATAR_PNG.data);

  const event = await take(watcher, aboutAvatar('realm_user', IDS.hamlet));
  t.like(event.person, {
    avatar_source: 'U',
    avatar_url: up.avatar_url,
    avatar_url_medium: up.avatar_url,
    avatar_version: before.avatar_version + 1,
  });
  // An uploaded avatar is a URL even for clients that compute gravatars themselves.
  t.like(await avatarOf(othello, IDS.hamlet), { avatar_url: up.avatar_url, avatar_version: before.avatar_version + 1 });
  const users = await succeeds<{ members: Person[] }>('GET', '/users', othello.get('/users'));
  t.is(users.members.find((u) => u.user_id === IDS.hamlet)?.avatar_url, up.avatar_url);
  const own = await snapshotOf(hamlet, { fetch_event_types: JSON.stringify(['realm_user']) });
  t.like(own, { avatar_source: 'U', avatar_url: up.avatar_url });

  const gone = await bodyOf<{ avatar_url: string }>(hamlet.delete('/users/me/avatar'));
  t.regex(
    gone.avatar_url,
    new RegExp(`^https://secure\\.gravatar\\.com/avatar/.*version=${before.avatar_version + 2}$`),
  );
  t.like(await avatarOf(othello, IDS.hamlet), { avatar_url: null, avatar_version: before.avatar_version + 2 });
  t.like((await take(watcher, aboutAvatar('realm_user', IDS.hamlet))).person, {
    avatar_source: 'G',
    avatar_url: gone.avatar_url,
  });
  t.is((await served(othello, up.avatar_url.split('?')[0]!)).status, 404);
});

test('avatar uploads are refused as the original refuses them', async (t) => {
  const { hamlet } = t.context;
  await refused(t, hamlet.upload('/users/me/avatar', []), 'You must upload exactly one avatar.');
  await refused(
    t,
    hamlet.upload('/users/me/avatar', [AVATAR_PNG, { ...GIF, field: 'two' }]),
    'You must upload exactly one avatar.',
  );
  const text = { name: 'a.png', type: 'image/png', data: Buffer.from('<html>not an image</html>') };
  await refused(t, hamlet.upload('/users/me/avatar', [text]), 'Could not decode image; did you upload an image file?');
  const huge = { ...AVATAR_PNG, data: Buffer.concat([AVATAR_PNG.data, Buffer.alloc(5 * 1024 * 1024)]) };
  await refused(
    t,
    hamlet.upload('/users/me/avatar', [huge]),
    'Uploaded file is larger than the allowed limit of 5 MiB',
  );
});

test.serial('an organization that disabled avatar changes refuses them to all but administrators', async (t) => {
  const { hamlet, iago } = t.context;
  await bodyOf(iago.patch('/realm', { avatar_changes_disabled: true }));
  try {
    await refused(
      t,
      hamlet.upload('/users/me/avatar', [AVATAR_PNG]),
      'Avatar changes are disabled in this organization.',
    );
    await refused(t, hamlet.delete('/users/me/avatar'), 'Avatar changes are disabled in this organization.');
    await bodyOf(iago.upload('/users/me/avatar', [AVATAR_PNG]));
  } finally {
    await bodyOf(iago.patch('/realm', { avatar_changes_disabled: false }));
  }
});

test("a bot's avatar: made with one, changed by its owner, refused to others, announced to its owner", async (t) => {
  const { hamlet, othello } = t.context;
  const short = `avatar${Date.now()}`;
  // A file that is no image makes no bot.
  const text = { name: 'a.png', type: 'image/png', data: Buffer.from('no image') };
  const bad = hamlet.upload('/bots', [text], { full_name: 'No Avatar Bot', short_name: `no${short}` });
  await refused(t, bad, 'Could not decode image; did you upload an image file?');
  const before = await bodyOf<{ bots: Array<{ username: string }> }>(hamlet.get('/bots'));
  t.false(before.bots.some((b) => b.username.startsWith(`no${short}-bot@`)));
  const made = await bodyOf<{ user_id: number; avatar_url: string }>(
    hamlet.upload('/bots', [AVATAR_PNG], { full_name: 'Avatar Bot', short_name: short }),
  );
  t.regex(made.avatar_url, /^\/user_avatars\/\d+\/[A-Za-z0-9_-]+\.png\?version=2$/);
  const listed = await bodyOf<{ bots: Array<{ username: string; avatar_url: string }> }>(hamlet.get('/bots'));
  t.is(listed.bots.find((b) => b.username.startsWith(`${short}-bot@`))?.avatar_url, made.avatar_url);

  const watcher = await register(hamlet, { event_types: JSON.stringify(['realm_bot']) });
  const changed = await patchWithFile(hamlet, `/bots/${made.user_id}`, GIF);
  t.is(changed.status, 200, JSON.stringify(changed.body));
  t.regex(changed.body.avatar_url, /^\/user_avatars\/\d+\/[A-Za-z0-9_-]+\.gif\?version=3$/);
  t.like((await next(watcher, aboutAvatar('realm_bot', made.user_id))).bot, { avatar_url: changed.body.avatar_url });
  const image = await served(othello, changed.body.avatar_url.split('?')[0]!);
  t.is(image.headers.get('content-type'), 'image/gif');
  t.is((await served(othello, made.avatar_url.split('?')[0]!)).status, 404);

  const refusal = await patchWithFile(othello, `/bots/${made.user_id}`, AVATAR_PNG);
  t.like(refusal.body, { code: 'BAD_REQUEST', msg: 'Insufficient permission' });
  t.is((await avatarOf(hamlet, made.user_id)).avatar_url, changed.body.avatar_url);
});
