import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type TestFn } from 'ava';
import type { ChatClient } from '@chat/testkit';
import { TestServer } from './support.js';

/**
 * BigBlueButton calls: `create` answers a signed join link; opening it
 * calls the BigBlueButton server's `create` (checksummed with the shared
 * secret, the way BigBlueButton checks it) and redirects to its `join`,
 * as moderator for the link's maker only. A fake BigBlueButton server on
 * 127.0.0.1 checks the checksum itself and records the calls.
 */
const SECRET = 'bbb-shared-secret';
interface Context {
  server: TestServer;
  bare: TestServer;
  bbb: Server;
  bbbUrl: string;
  calls: string[];
  hamlet: ChatClient;
  iago: ChatClient;
}
const test = anyTest as TestFn<Context>;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The checksum rule of the BigBlueButton API: sha256(call + query without checksum + secret). */
function checksumOk(call: string, search: string): boolean {
  const query = search.replace(/^\?/, '');
  const at = query.lastIndexOf('&checksum=');
  return at > 0 && sha256(call + query.slice(0, at) + SECRET) === query.slice(at + '&checksum='.length);
}

test.before(async (t) => {
  t.context.calls = [];
  t.context.bbb = createServer((req, res) => {
    const url = new URL(req.url ?? '', 'http://bbb');
    t.context.calls.push(`${url.pathname}${url.search}`);
    const good = checksumOk('create', url.search);
    const xml = good
      ? '<response><returncode>SUCCESS</returncode><createTime>1700000000123</createTime></response>'
      : '<response><returncode>FAILED</returncode><messageKey>checksumError</messageKey></response>';
    res.writeHead(200, { 'content-type': 'text/xml' }).end(xml);
  });
  await new Promise<void>((resolve) => t.context.bbb.listen(0, '127.0.0.1', resolve));
  const { port } = t.context.bbb.address() as AddressInfo;
  t.context.bbbUrl = `http://127.0.0.1:${port}/bigbluebutton/`;
  t.context.server = await TestServer.start({ bigBlueButtonUrl: t.context.bbbUrl, bigBlueButtonSecret: SECRET });
  t.context.bare = await TestServer.start();
  t.context.hamlet = await t.context.server.login('hamlet@zulip.com');
  t.context.iago = await t.context.server.login('iago@zulip.com');
});
test.after.always(async (t) => {
  await t.context.server?.stop();
  await t.context.bare?.stop();
  await new Promise((resolve) => t.context.bbb?.close(resolve));
});

const join = (client: ChatClient, url: string) => client.fetch('GET', `/${url}`, { redirect: 'manual' });

test.serial('the link creates the meeting with a right checksum and lets its maker in as moderator', async (t) => {
  const { hamlet, iago, calls, bbbUrl } = t.context;
  const reply = await hamlet.get<{ url: string }>('/calls/bigbluebutton/create', {
    meeting_name: 'Design review / q3',
    voice_only: true,
  });
  t.is(reply.status, 200);
  t.regex(reply.body.url, /^\/calls\/bigbluebutton\/join\?bigbluebutton=[^&]+$/);

  const own = await join(hamlet, reply.body.url);
  t.is(own.status, 302);
  const created = calls.at(-1)!;
  t.regex(
    created,
    /^\/bigbluebutton\/api\/create\?meetingID=zulip-\d{12}&name=Design%20review%20\/%20q3&lockSettingsDisableCam=True&checksum=[0-9a-f]{64}$/,
  );
  const location = new URL(own.headers.get('location')!);
  t.is(`${location.origin}${location.pathname}`, `${bbbUrl}api/join`);
  t.true(checksumOk('join', location.search));
  t.is(location.searchParams.get('role'), 'MODERATOR');
  t.is(location.searchParams.get('fullName'), 'King Hamlet');
  t.is(location.searchParams.get('createTime'), '1700000000123');

  const other = await join(iago, reply.body.url);
  t.is(other.status, 302);
  t.is(new URL(other.headers.get('location')!).searchParams.get('role'), 'VIEWER');
});

test.serial('an edited link is refused; so is a caller without credentials', async (t) => {
  const { hamlet, server } = t.context;
  const { url } = (await hamlet.get<{ url: string }>('/calls/bigbluebutton/create', { meeting_name: 'x' })).body;
  const edited = url.replace(/bigbluebutton=./, (m) => m.slice(0, -1) + (m.endsWith('A') ? 'B' : 'A'));
  const refused = await join(hamlet, edited);
  t.is(refused.status, 400);
  t.like(await refused.json(), { result: 'error', code: 'BAD_REQUEST', msg: 'Invalid signature.' });
  const anonymous = await join(server.client, url);
  t.is(anonymous.status, 401);
});

test('without BigBlueButton configured, no call is made', async (t) => {
  const hamlet = await t.context.bare.login('hamlet@zulip.com');
  const reply = await hamlet.get('/calls/bigbluebutton/create', { meeting_name: 'x' });
  t.is(reply.status, 400);
  t.like(reply.body, { result: 'error', code: 'BAD_REQUEST', msg: 'BigBlueButton is not configured.' });
  const missing = await hamlet.get('/calls/bigbluebutton/create', {});
  t.like(missing.body, { code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'meeting_name' argument" });
});
