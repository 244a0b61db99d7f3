import test from 'ava';
import type { ActorAddress, Command } from '@chat/protocol';
import { typedClient, type ActorClient, type UntypedActorClient } from '@chat/runtime';
import { onCluster } from './cluster-target.js';
import { TestServer } from './support.js';
import { bodyOf, fails, refused } from './replies.js';

/**
 * A send's reads of the realm (its settings, the channel it names, the users its content mentions, the
 * custom emoji) go out together: the realm's one mailbox answers them in one pass instead of one round
 * trip after another. While `on`, the edge's client holds each ask of type `held` until `wanted` other
 * asks have been made since it began, noting their types; it lets the ask go after a second at most, so
 * that a send asking in turn fails, not hangs.
 */
function holding(actors: ActorClient, held: string, wanted: number) {
  const loose = actors as unknown as UntypedActorClient;
  const state = { on: false, askedWhileHeld: [] as string[], pending: 0 };
  const client = typedClient({
    ...loose,
    ask: async (to: ActorAddress, body: Command, opts) => {
      if (!state.on) return loose.ask(to, body, opts);
      if (state.pending > 0) state.askedWhileHeld.push(body.type);
      if (body.type === held) {
        state.pending++;
        const started = Date.now();
        while (Date.now() - started < 1000 && state.askedWhileHeld.length < wanted) {
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        state.pending--;
      }
      return loose.ask(to, body, opts);
    },
    tell: (to, body, opts) => loose.tell(to, body, opts),
    fanout: (type, keys, body, opts) => loose.fanout(type, keys, body, opts),
    fanoutAsk: (type, keys, body, opts) => loose.fanoutAsk(type, keys, body, opts),
  });
  return { client, state };
}

// Embedded only: the test holds an ask of the edge, which a cluster's edges do not let it reach.
test('a channel message asks the realm for its settings, channel, mentions and emoji at once', async (t) => {
  if (onCluster) return t.pass();
  let hold!: ReturnType<typeof holding>;
  const server = await TestServer.start({}, (actors) => (hold = holding(actors, 'realm.settings', 3)).client);
  try {
    const iago = await server.login('iago@zulip.com');
    const send = { type: 'stream', to: 'Verona', topic: 'at once', content: 'Hi @**King Hamlet** :octopus:' };
    hold.state.on = true;
    const sent = await bodyOf<{ id: number }>(iago.post('/messages', send));
    hold.state.on = false;
    t.deepEqual(hold.state.askedWhileHeld.sort(), ['realm.emoji', 'realm.findChannel', 'realm.resolve']);
    // And the message is what the content says: the mention resolved.
    const got = await bodyOf<{ message: { content: string } }>(iago.get(`/messages/${sent.id}`));
    t.regex(got.message.content, /user-mention/);
  } finally {
    await server.stop();
  }
});

// Embedded only, as the test above.
test("a message's mentions and custom emoji are asked for at once", async (t) => {
  if (onCluster) return t.pass();
  let hold!: ReturnType<typeof holding>;
  const server = await TestServer.start({}, (actors) => (hold = holding(actors, 'realm.resolve', 1)).client);
  try {
    const iago = await server.login('iago@zulip.com');
    const verona = await bodyOf<{ stream_id: number }>(iago.get('/get_stream_id', { stream: 'Verona' }));
    const send = { type: 'stream', to: verona.stream_id, topic: 'at once', content: 'Hi @**King Hamlet** :octopus:' };
    hold.state.on = true;
    await bodyOf(iago.post('/messages', send));
    hold.state.on = false;
    t.true(hold.state.askedWhileHeld.includes('realm.emoji'), JSON.stringify(hold.state.askedWhileHeld));
  } finally {
    await server.stop();
  }
});

test('asked at once, a send still gives the refusal of its first failing check', async (t) => {
  const server = await TestServer.start();
  try {
    const iago = await server.login('iago@zulip.com');
    // An unknown channel and no topic: the channel is checked first.
    await fails(
      t,
      iago.post('/messages', { type: 'stream', to: 'No such channel', content: 'x' }),
      'STREAM_DOES_NOT_EXIST',
      "Channel 'No such channel' does not exist",
    );
    // A known channel and no topic.
    await refused(t, iago.post('/messages', { type: 'stream', to: 'Verona', content: 'x' }), 'Missing topic');
    // Empty content, before anything is asked.
    await refused(
      t,
      iago.post('/messages', { type: 'stream', to: 'No such channel', topic: 't', content: ' ' }),
      'Message must not be empty',
    );
  } finally {
    await server.stop();
  }
});
