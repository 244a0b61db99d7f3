import type { ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { next, register, snapshotOf, type Body, type Event } from './queues.js';
import { bodyOf, ok, refusal } from './replies.js';

/**
 * Linkifiers: administrators add, change, reorder and remove them; clients
 * that read URL templates hear the whole list (`realm_linkifiers`) and find
 * it in the register; messages sent and edited afterwards are rendered
 * with them.
 */
const test = withServer(['iago', 'hamlet']);

const capable = { client_capabilities: JSON.stringify({ linkifier_url_template: true }) };
const trac = { pattern: '#(?P<id>[0-9]+)', url_template: 'https://trac.example.com/ticket/{id}' };
const bad = (msg: string) => ({ status: 400, result: 'error', code: 'BAD_REQUEST', msg });
const listOf = async (client: ChatClient) =>
  ((await ok(client, 'GET', '/realm/linkifiers')) as { linkifiers: Body[] }).linkifiers;

async function renderedAs(client: ChatClient, content: string): Promise<string> {
  const sent = await bodyOf<{ id: number }>(
    client.post('/messages', { type: 'stream', to: 'Denmark', topic: 'links', content }),
  );
  return (await bodyOf<{ message: { content: string } }>(client.get(`/messages/${sent.id}`))).message.content;
}

test.serial('a linkifier is listed, announced, in the register, and applied to messages sent and edited', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(hamlet, { event_types: JSON.stringify(['realm_linkifiers']), ...capable });
  t.is(await renderedAs(hamlet, 'fixes #123'), '<p>fixes #123</p>');

  const { id } = (await ok(iago, 'POST', '/realm/filters', trac)) as { id: number };
  const has = (e: Event) => e.type === 'realm_linkifiers' && (e.realm_linkifiers as Body[]).some((l) => l.id === id);
  t.deepEqual((await next(queue, has)).realm_linkifiers, [{ id, ...trac }]);
  t.deepEqual(await listOf(hamlet), [{ id, ...trac }]);
  const fetch = { fetch_event_types: JSON.stringify(['realm_linkifiers']) };
  t.deepEqual((await snapshotOf(hamlet, { ...fetch, ...capable })).realm_linkifiers, [{ id, ...trac }]);
  // A client that does not read URL templates gets none, as from the original.
  t.deepEqual((await snapshotOf(hamlet, fetch)).realm_linkifiers, []);

  const link = '<a href="https://trac.example.com/ticket/123">#123</a>';
  t.is(await renderedAs(hamlet, 'fixes #123, not `#123`'), `<p>fixes ${link}, not <code>#123</code></p>`);
  // The topic's links: the linkifier's matches and raw URLs, on fetched messages and in message events.
  const messages = await register(hamlet, { event_types: JSON.stringify(['message']) });
  const topic = '#77 and https://x.example/a';
  const sent = await bodyOf<{ id: number }>(
    hamlet.post('/messages', { type: 'stream', to: 'Denmark', topic, content: 'x' }),
  );
  const topicLinks = [
    { text: '#77', url: 'https://trac.example.com/ticket/77' },
    { text: 'https://x.example/a', url: 'https://x.example/a' },
  ];
  const fetched = await bodyOf<{ message: Body }>(hamlet.get(`/messages/${sent.id}`));
  t.deepEqual(fetched.message.topic_links, topicLinks);
  const heard = await next(messages, (e) => e.type === 'message' && (e.message as Body).id === sent.id);
  t.deepEqual((heard.message as Body).topic_links, topicLinks);

  const other = { pattern: '#(?P<id>[0-9]+)', url_template: 'https://other.example.com/{id}' };
  await ok(iago, 'PATCH', `/realm/filters/${id}`, other);
  const toEdit = await bodyOf<{ id: number }>(
    hamlet.post('/messages', { type: 'stream', to: 'Denmark', topic: 'links', content: 'x' }),
  );
  await bodyOf(hamlet.patch(`/messages/${toEdit.id}`, { content: 'see #7' }));
  const edited = (await bodyOf<{ message: { content: string } }>(hamlet.get(`/messages/${toEdit.id}`))).message.content;
  t.is(edited, '<p>see <a href="https://other.example.com/7">#7</a></p>');

  await ok(iago, 'DELETE', `/realm/filters/${id}`);
  await next(queue, (e) => e.type === 'realm_linkifiers' && (e.realm_linkifiers as Body[]).length === 0);
  t.deepEqual(await listOf(hamlet), []);
  t.is(await renderedAs(hamlet, 'fixes #123'), '<p>fixes #123</p>');
  t.deepEqual(await refusal(iago.delete(`/realm/filters/${id}`)), bad('Linkifier not found.'));
  t.deepEqual(await refusal(iago.patch(`/realm/filters/${id}`, trac)), bad('Linkifier not found.'));
});

test.serial('linkifiers apply in the order the administrators set', async (t) => {
  const { iago, hamlet } = t.context;
  const abc = { pattern: '(?P<id>ABC-[0-9]+)', url_template: 'https://abc.example.com/{id}' };
  const any = { pattern: '(?P<id>[A-Z]+-[0-9]+)', url_template: 'https://any.example.com/{id}' };
  const first = ((await ok(iago, 'POST', '/realm/filters', abc)) as { id: number }).id;
  const second = ((await ok(iago, 'POST', '/realm/filters', any)) as { id: number }).id;
  t.is(await renderedAs(hamlet, 'ABC-1'), '<p><a href="https://abc.example.com/ABC-1">ABC-1</a></p>');
  await ok(iago, 'PATCH', '/realm/linkifiers', { ordered_linkifier_ids: JSON.stringify([second, first]) });
  t.deepEqual(
    (await listOf(hamlet)).map((l) => l.id),
    [second, first],
  );
  t.is(await renderedAs(hamlet, 'ABC-1'), '<p><a href="https://any.example.com/ABC-1">ABC-1</a></p>');
  const order = (ids: number[]) => iago.patch('/realm/linkifiers', { ordered_linkifier_ids: JSON.stringify(ids) });
  t.deepEqual(
    await refusal(order([first, first, second])),
    bad('The ordered list must not contain duplicated linkifiers'),
  );
  t.deepEqual(
    await refusal(order([first])),
    bad('The ordered list must enumerate all existing linkifiers exactly once'),
  );
  await ok(iago, 'DELETE', `/realm/filters/${first}`);
  await ok(iago, 'DELETE', `/realm/filters/${second}`);
});

test.serial('members may not; patterns and templates are checked as the original checks them', async (t) => {
  const { iago, hamlet } = t.context;
  t.deepEqual(await refusal(hamlet.post('/realm/filters', trac)), {
    status: 400,
    result: 'error',
    code: 'UNAUTHORIZED_PRINCIPAL',
    msg: 'Must be an organization administrator',
  });
  const add = (values: Body) => iago.post('/realm/filters', { ...trac, ...values });
  t.deepEqual(await refusal(add({ url_template: 'https://x.example/{id' })), bad('Invalid URL template.'));
  const unbalanced = await add({ pattern: '#(?P<id>[0-9]+' });
  t.like(unbalanced.body, { code: 'BAD_REQUEST' });
  t.is(unbalanced.body.msg, 'Bad regular expression: missing ): #(?P<id>[0-9]+');
  t.deepEqual((unbalanced.body.errors as Body).__all__, [unbalanced.body.msg]);
  // RE2's words, as the original answers them (JavaScript's RegExp says 'Nothing to repeat').
  const repeated = await refusal(add({ pattern: 'ZUL-(?P<id>\\d????)' }));
  t.deepEqual(repeated, bad('Bad regular expression: bad repetition operator: ????'));
  t.deepEqual(
    await refusal(add({ url_template: 'https://x.example/{id}/{other}' })),
    bad("Group 'other' in URL template is not present in linkifier pattern."),
  );
  t.deepEqual(
    await refusal(add({ pattern: '#(?P<id>[0-9]+)-(?P<part>[a-z]+)' })),
    bad("Group 'part' in linkifier pattern is not present in URL template."),
  );
  const { id } = (await ok(iago, 'POST', '/realm/filters', trac)) as { id: number };
  t.deepEqual(await refusal(add({})), bad('Realm filter with this Realm and Pattern already exists.'));
  await ok(iago, 'DELETE', `/realm/filters/${id}`);
});
