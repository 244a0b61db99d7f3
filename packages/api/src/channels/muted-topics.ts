import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, VISIBILITY, type ChannelInfo, type UserTopic, mutedTopicsEvent } from '@chat/protocol';
import { CallerContext } from '../context.js';
import { normalizeTopic } from '../limits.js';

/** The legacy `muted_topics`: [channel name, topic, when muted] for each muted topic. */
export async function mutedTopics(
  caller: CallerContext,
  topics: UserTopic[],
): Promise<Array<[string, string, number]>> {
  const muted = topics.filter((t) => t.visibility_policy === VISIBILITY.muted);
  const names = new Map<number, string>();
  for (const t of muted) {
    if (!names.has(t.stream_id)) names.set(t.stream_id, (await caller.channelInfo(t.stream_id)).name);
  }
  return muted.map((t) => [names.get(t.stream_id)!, t.topic_name, t.last_updated]);
}

/**
 * Sets a topic's visibility policy for the caller, then tells the caller's
 * queues the legacy `muted_topics` list as it now stands (the queues that
 * asked for `user_topic` by name drop it), so both forms stay in step.
 */
export async function setTopicPolicy(caller: CallerContext, channelId: number, topic: string, policy: number) {
  await caller.actors.ask(caller.me, {
    type: 'user.setTopic',
    channel_id: channelId,
    topic,
    visibility_policy: policy,
  });
  const fresh = new CallerContext(caller.actors, caller.principal);
  const list = await mutedTopics(fresh, (await fresh.state()).user_topics);
  await caller.actors.ask(caller.me, { type: 'user.deliver', events: [mutedTopicsEvent(list)] });
}

/** The channel named by id or by name (exactly one of them), as the caller may see it. */
async function channelOf(
  caller: CallerContext,
  id: number | undefined,
  name: string | undefined,
): Promise<ChannelInfo> {
  if (id !== undefined && name !== undefined)
    throw new ChatError('BAD_REQUEST', "Please choose one: 'stream' or 'stream_id'.");
  if (id !== undefined) return caller.channelInfo(id);
  if (name === undefined) throw new ChatError('BAD_REQUEST', "Please supply 'stream'.");
  const entry = await caller.channelByName(name).catch(() => {
    throw new ChatError('BAD_REQUEST', `Invalid channel name '${name}'`);
  });
  return caller.channelInfo(entry.channel_id);
}

export function mutedTopicRoutes(): Route[] {
  return [
    defineRoute({
      method: 'PATCH',
      path: '/users/me/subscriptions/muted_topics',
      auth: 'required',
      params: Type.Object({
        stream_id: Type.Optional(Type.Integer()),
        stream: Type.Optional(Type.String()),
        topic: Type.String(),
        op: Type.Union([Type.Literal('add'), Type.Literal('remove')]),
      }),
      summary: 'Topic muting',
      description: 'The legacy form of POST /user_topics: mutes a topic, or sets it back to the default.',
      tags: ['channels'],
      response: Type.Object({}),
      async handler({ params, principal, actors }) {
        const caller = new CallerContext(actors, principal);
        const info = await channelOf(caller, params.stream_id, params.stream);
        const topic = normalizeTopic(params.topic, await caller.settings());
        const policy = params.op === 'add' ? VISIBILITY.muted : VISIBILITY.inherit;
        await setTopicPolicy(caller, info.stream_id, topic, policy);
        return {};
      },
    }),
  ];
}
