import { rm } from 'node:fs/promises';
import test from 'ava';
import { ChatClient, ServerProcess } from '@chat/testkit';
import { readOutbox } from '../src/mail.js';
import { linkIn, openPage, postForm } from './invite-support.js';
import { ok } from './replies.js';
import { MAIN, tempDir } from './support.js';

/**
 * API keys, passwords and the keys of mailed links never reach the server's
 * log, even at its most verbose level: the server runs as a process and
 * everything it prints is searched for every secret the test used.
 */
test('no API key, password or link key is ever logged, even at LOG_LEVEL=trace', async (t) => {
  t.timeout(180_000);
  const dir = await tempDir('secrets');
  let output = '';
  const server = new ServerProcess(
    ['node', MAIN, 'start'],
    { PORT: '0', DATA_DIR: dir, LOG_LEVEL: 'trace' },
    (text) => (output += text),
  );
  t.teardown(async () => {
    await server.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });
  const url = await server.start(60_000);
  const anonymous = new ChatClient(url);
  const secrets = new Map<string, string>();
  const grant = async (username: string, password: string) => {
    const reply = await anonymous.post<{ api_key: string }>('/fetch_api_key', { username, password });
    t.is(reply.status, 200, JSON.stringify(reply.body));
    return reply.body.api_key;
  };

  const iagoKey = (await ok(anonymous, 'POST', '/dev_fetch_api_key', { username: 'iago@zulip.com' })).api_key as string;
  const iago = anonymous.as({ email: 'iago@zulip.com', apiKey: iagoKey });
  // A user made with a password, who logs in with it and uses the key it gets.
  const email = 'keeper@zulip.com';
  secrets.set('first password', 'first-Pa55word-0f-keeper');
  await ok(iago, 'POST', '/users', { email, password: secrets.get('first password'), full_name: 'Keeper' });
  secrets.set('first key', await grant(email, secrets.get('first password')!));
  let keeper = anonymous.as({ email, apiKey: secrets.get('first key')! });
  await ok(keeper, 'GET', '/users/me');

  // Failed logins, each with a secret of its own.
  secrets.set('wrong password', 'not-the-Pa55word-at-all');
  secrets.set('unknown user password', 'nobody-has-this-Pa55word');
  secrets.set('wrong key', 'WrongKeyWrongKeyWrongKeyWrongKe1');
  const wrong = await anonymous.post('/fetch_api_key', { username: email, password: secrets.get('wrong password') });
  t.is(wrong.status, 401);
  const unknown = await anonymous.post('/fetch_api_key', {
    username: 'nobody@zulip.com',
    password: secrets.get('unknown user password'),
  });
  t.is(unknown.status, 401);
  t.is((await anonymous.as({ email, apiKey: secrets.get('wrong key')! }).get('/users/me')).status, 401);
  // A password sent where the key goes, as a confused client would.
  t.is((await anonymous.as({ email, apiKey: secrets.get('first password')! }).get('/users/me')).status, 401);

  // A password change, a refused one, then a new key.
  secrets.set('second password', 'second-Pa55word-0f-keeper');
  secrets.set('guessed old password', 'guessed-old-Pa55word');
  await ok(keeper, 'PATCH', '/settings', {
    old_password: secrets.get('first password'),
    new_password: secrets.get('second password'),
  });
  const refused = await keeper.patch('/settings', {
    old_password: secrets.get('guessed old password'),
    new_password: 'never-set-Pa55word',
  });
  t.is(refused.status, 400);
  const regenerated = await keeper.post<{ api_key: string }>('/users/me/api_key/regenerate');
  t.is(regenerated.status, 200);
  secrets.set('second key', regenerated.body.api_key);
  keeper = anonymous.as({ email, apiKey: secrets.get('second key')! });
  await ok(keeper, 'GET', '/users/me');

  // An invitation, opened and accepted in the browser; the new member logs in.
  await ok(iago, 'POST', '/invites', { invitee_emails: 'newbie@example.com', stream_ids: '[]' });
  const joinLink = linkIn(
    (await readOutbox(dir)).find((m) => m.to === 'newbie@example.com'),
    '/join/',
  );
  secrets.set('invitation key', /\/join\/([^/]+)\//.exec(joinLink)![1]!);
  secrets.set('newbie password', 'newbie-Pa55word-chosen');
  t.is((await openPage(joinLink)).status, 200);
  t.is((await postForm(joinLink, { full_name: 'Newbie', password: secrets.get('newbie password')! })).status, 200);
  secrets.set('newbie key', await grant('newbie@example.com', secrets.get('newbie password')!));
  t.is((await openPage(`${url}/join/${'x'.repeat(24)}/`)).status, 404);

  // A download through a signed temporary URL, whose token works without credentials for a while.
  const uploaded = await keeper.upload<{ url: string }>('/user_uploads', [
    { name: 'note.txt', data: Buffer.from('x') },
  ]);
  t.is(uploaded.status, 200);
  const signed = await keeper.get<{ url: string }>(uploaded.body.url);
  t.is(signed.status, 200, JSON.stringify(signed.body));
  secrets.set('download token', /temporary\/([^/]+)\//.exec(signed.body.url)![1]!);
  t.is((await fetch(`${url}${signed.body.url}`)).status, 200);

  // An address change, confirmed by its mailed link.
  await ok(keeper, 'PATCH', '/settings', { email: 'keeper@example.com' });
  const confirm = linkIn(
    (await readOutbox(dir)).find((m) => m.to === 'keeper@example.com'),
    '/accounts/confirm_new_email/',
  );
  secrets.set('confirmation key', /confirm_new_email\/([^/]+)\//.exec(confirm)![1]!);
  t.is((await openPage(confirm)).status, 200);

  await server.stop();
  // The log was captured at that level: every request has its line.
  t.regex(output, /"route":"\/api\/v1\/fetch_api_key"/);
  t.regex(output, /"route":"\/join\/\{key\}\/"/);
  // In development, `start` prints a ready-made curl command with Iago's key: the one secret
  // meant for the console, on a line of its own, never in a log line.
  const lines = output.split('\n').filter((line) => !line.startsWith('Try:  curl -u iago@zulip.com:'));
  t.false(
    lines.some((line) => line.includes(iagoKey)),
    "Iago's key outside the development hint",
  );
  const leaked = [...secrets].filter(([, secret]) => output.includes(secret)).map(([name]) => name);
  t.deepEqual(leaked, []);
});
