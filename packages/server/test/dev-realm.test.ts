import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { channelAddress, realmAddress, type ActorAddress, type Command } from '@chat/protocol';
import { silentLogger, typedClient, type ActorClient, type UntypedActorClient } from '@chat/runtime';
import { DEV_REALM, ensureDevRealm } from '../src/dev-realm.js';
import { loadConfig } from '../src/config.js';
import { startEmbeddedNode, type EmbeddedNode } from '../src/node.js';

// The seeding of the development realm, on an embedded node of its own: no HTTP, so embedded only.

async function withNode(run: (node: EmbeddedNode) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'dev-realm-'));
  const node = await startEmbeddedNode(
    loadConfig({}, { dataDir: join(dir, 'data'), logLevel: 'silent' }),
    silentLogger,
  );
  try {
    await run(node);
  } finally {
    await node.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const WRITES = new Set(['realm.create', 'realm.registerChannel', 'channel.create']);

/**
 * Every write is applied, then sent again and the second answer returned: what
 * the client's retry does when a shard's old owner (its lease ran out, still
 * subscribed) answers "not owner" before the new owner, which applied it.
 */
function sendingWritesTwice(actors: ActorClient): ActorClient {
  const loose = actors as unknown as UntypedActorClient;
  return typedClient({
    ...loose,
    ask: async (to: ActorAddress, body: Command, opts) => {
      if (!WRITES.has(body.type)) return loose.ask(to, body, opts);
      await loose.ask(to, body, opts);
      return loose.ask(to, body, opts);
    },
    tell: (to, body, opts) => loose.tell(to, body, opts),
    fanout: (type, keys, body, opts) => loose.fanout(type, keys, body, opts),
    fanoutAsk: (type, keys, body, opts) => loose.fanoutAsk(type, keys, body, opts),
  });
}

async function channelNames(actors: ActorClient): Promise<string[]> {
  const channels = await actors.ask(realmAddress(DEV_REALM.stringId), { type: 'realm.channels' });
  return channels.map((c) => c.name).sort();
}

const expected = DEV_REALM.channels.map((c) => c.name).sort();

test('a seeding write sent twice (a retry of an ask that was applied) applies once', async (t) => {
  await withNode(async (node) => {
    t.is(await ensureDevRealm(sendingWritesTwice(node.actors)), 'created');
    t.deepEqual(await channelNames(node.actors), expected);
    const users = await node.actors.ask(realmAddress(DEV_REALM.stringId), { type: 'realm.listUsers' });
    const emails = users.map((u) => u.email.toLowerCase());
    t.is(new Set(emails).size, emails.length);
    for (const user of DEV_REALM.users) t.true(emails.includes(user.email.toLowerCase()), user.email);
    t.is(await ensureDevRealm(node.actors), 'present');
  });
});

test('two seeders at once both finish, with one realm and each channel once', async (t) => {
  await withNode(async (node) => {
    const outcomes = await Promise.all([ensureDevRealm(node.actors), ensureDevRealm(node.actors)]);
    t.true(outcomes.every((o) => o === 'created' || o === 'present'));
    t.deepEqual(await channelNames(node.actors), expected);
  });
});

/** A start that stops (crashes) right after the realm registered `name`, before the channel's actor is created. */
function stoppingAfterRegistering(actors: ActorClient, name: string): ActorClient {
  const loose = actors as unknown as UntypedActorClient;
  return typedClient({
    ...loose,
    ask: async (to: ActorAddress, body: Command, opts) => {
      const reply = await loose.ask(to, body, opts);
      if (body.type === 'realm.registerChannel' && (body.entry as { name: string }).name === name)
        throw new Error('crashed');
      return reply;
    },
    tell: (to, body, opts) => loose.tell(to, body, opts),
    fanout: (type, keys, body, opts) => loose.fanout(type, keys, body, opts),
    fanoutAsk: (type, keys, body, opts) => loose.fanoutAsk(type, keys, body, opts),
  });
}

test('a start that stopped between registering a channel and creating it is finished by the next', async (t) => {
  await withNode(async (node) => {
    await t.throwsAsync(ensureDevRealm(stoppingAfterRegistering(node.actors, 'Verona')), { message: 'crashed' });
    t.is(await ensureDevRealm(node.actors), 'present');
    const realm = realmAddress(DEV_REALM.stringId);
    for (const channel of DEV_REALM.channels) {
      const { channel_id } = await node.actors.ask(realm, { type: 'realm.findChannel', name: channel.name });
      const info = await node.actors.ask(channelAddress(DEV_REALM.stringId, channel_id), { type: 'channel.info' });
      t.is(info.name, channel.name);
      t.is(info.subscribers.length, channel.members.length, channel.name);
    }
  });
});
