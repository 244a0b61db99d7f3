import { ChatClient } from '@chat/testkit';
import { Register, type SentMessage } from './crash-ledger.js';
import { attempt, nextToken, pick, type Op, type Writer, type World } from './crash-world.js';

export type { Writer, World } from './crash-world.js';

const EMOJI = ['smile', 'heart', 'tada', 'octopus'];
const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'ja', 'pt', 'ru'];

function sendMessage(direct: boolean): Op {
  return async (world, me, client) => {
    const token = nextToken(world, me, 'm');
    const other = direct
      ? pick(
          world.rng,
          world.writers.filter((w) => w !== me),
        )
      : undefined;
    const message: SentMessage = {
      token,
      sender: me.id,
      conversation: other ? [me.id, other.id].sort((a, b) => a - b) : 'channel',
      fate: 'unanswered',
      version: 0,
      content: new Register({ value: `${token} v0` }),
      reactions: new Map(),
    };
    world.ledger.messages.set(token, message);
    const params = other
      ? { type: 'direct', to: JSON.stringify([other.id]), content: `${token} v0` }
      : { type: 'stream', to: world.channel.id, topic: 'crash', content: `${token} v0` };
    await attempt(
      world,
      direct ? 'direct_message' : 'channel_message',
      ['POST', '/messages'],
      () => client.post('/messages', params),
      {
        acked(body) {
          message.fate = 'acked';
          message.id = body.id as number;
          world.ledger.claimId('messages', message.id, token);
        },
        unsure() {},
      },
    );
  };
}

/** Messages whose id is known and that `me` can see. */
const visible = (world: World, me: Writer) =>
  [...world.ledger.messages.values()].filter(
    (m) =>
      m.id !== undefined &&
      (m.fate === 'acked' || m.fate === 'seen') &&
      (m.conversation === 'channel' || m.conversation.includes(me.id)),
  );

const edit: Op = async (world, me, client) => {
  const mine = visible(world, me).filter((m) => m.sender === me.id && m.content.certain);
  if (mine.length === 0) return;
  const message = pick(world.rng, mine);
  const content = `${message.token} v${++message.version}`;
  await attempt(
    world,
    'edit',
    ['PATCH', `/messages/${message.id}`],
    () => client.patch(`/messages/${message.id}`, { content }),
    {
      acked: () => message.content.acknowledge(content),
      unsure: () => message.content.unanswered(content),
    },
  );
};

const react: Op = async (world, me, client) => {
  const candidates = visible(world, me);
  if (candidates.length === 0) return;
  const message = pick(world.rng, candidates);
  const emoji = pick(world.rng, EMOJI);
  const key = `${me.id}:${emoji}`;
  const register = message.reactions.get(key) ?? new Register({ value: false });
  if (!register.certain) return;
  message.reactions.set(key, register);
  const adding = !register.value;
  const path = `/messages/${message.id}/reactions`;
  await attempt(
    world,
    'reaction',
    [adding ? 'POST' : 'DELETE', path],
    () => (adding ? client.post(path, { emoji_name: emoji }) : client.delete(path, { emoji_name: emoji })),
    { acked: () => register.acknowledge(adding), unsure: () => register.unanswered(adding) },
  );
};

const toggleSubscription: Op = async (world, me, client) => {
  const name = pick(world.rng, [...world.toggles.keys()]);
  const register = me.subscriptions.get(name)!;
  if (!register.certain) return;
  const joining = !register.value;
  const path = '/users/me/subscriptions';
  await attempt(
    world,
    'subscription',
    [joining ? 'POST' : 'DELETE', path],
    () =>
      joining
        ? client.post(path, { subscriptions: JSON.stringify([{ name }]) })
        : client.delete(path, { subscriptions: JSON.stringify([name]) }),
    { acked: () => register.acknowledge(joining), unsure: () => register.unanswered(joining) },
  );
};

const changeSetting: Op = async (world, me, client) => {
  const byLanguage = world.rng() < 0.6;
  const register = byLanguage ? me.language : me.fullName;
  if (!register.certain) return;
  const value = byLanguage
    ? pick(
        world.rng,
        LANGUAGES.filter((l) => l !== register.value),
      )
    : `${me.name} ${world.round}.${++me.seq}`;
  const params = byLanguage ? { default_language: value } : { full_name: value };
  await attempt(world, 'setting', ['PATCH', '/settings'], () => client.patch('/settings', params), {
    acked: () => register.acknowledge(value),
    unsure: () => register.unanswered(value),
  });
};

const setStatus: Op = async (world, me, client) => {
  if (!me.status.certain) return;
  const text = nextToken(world, me, 's');
  await attempt(
    world,
    'status',
    ['POST', '/users/me/status'],
    () => client.post('/users/me/status', { status_text: text }),
    {
      acked: () => me.status.acknowledge(text),
      unsure: () => me.status.unanswered(text),
    },
  );
};

const saveDraft: Op = async (world, me, client) => {
  const token = nextToken(world, me, 'd');
  const draft: { fate: SentMessage['fate']; id?: number } = { fate: 'unanswered' };
  me.drafts.set(token, draft);
  const drafts = [{ type: 'stream', to: [world.channel.id], topic: 'crash', content: token, timestamp: 1_000 }];
  await attempt(world, 'draft', ['POST', '/drafts'], () => client.post('/drafts', { drafts: JSON.stringify(drafts) }), {
    acked(body) {
      draft.fate = 'acked';
      draft.id = (body.ids as number[])[0]!;
    },
    unsure() {},
  });
};

/** The mix of writes, by weight. */
const OPS: Array<[Op, number]> = [
  [sendMessage(false), 25],
  [sendMessage(true), 15],
  [edit, 10],
  [react, 15],
  [toggleSubscription, 10],
  [changeSetting, 8],
  [setStatus, 8],
  [saveDraft, 9],
];
const TOTAL = OPS.reduce((sum, [, weight]) => sum + weight, 0);

function chooseOp(rng: () => number): Op {
  let roll = rng() * TOTAL;
  for (const [op, weight] of OPS) if ((roll -= weight) < 0) return op;
  return OPS[0]![0];
}

/** One writer's loop: one write at a time until told to stop (the kill is then under way). */
export async function writeUntil(world: World, me: Writer, url: string, stopped: () => boolean): Promise<void> {
  const client = new ChatClient(url, { email: me.email, apiKey: me.apiKey });
  while (!stopped()) await chooseOp(world.rng)(world, me, client);
}
