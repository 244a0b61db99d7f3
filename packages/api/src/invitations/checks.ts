import { isChatError, mayAddSubscribers, mayReadChannel, type InviteChannelCheck } from '@chat/protocol';
import type { CallerContext } from '../context.js';

/** Addresses separated by commas or newlines, each possibly as `Name <address>`; duplicates once. */
export function parseInvitees(raw: string): string[] {
  const seen = new Map<string, string>();
  for (const part of raw.split(/[,\n]/)) {
    const email = (/<(.*)>/.exec(part)?.[1] ?? part).trim();
    if (email !== '' && !seen.has(email.toLowerCase())) seen.set(email.toLowerCase(), email);
  }
  return [...seen.values()];
}

/**
 * What the realm needs to judge the requested channels; ones the caller cannot read are marked unseen
 * (the original's access_stream_by_id asks for content access: administering a channel is not enough).
 */
export async function checkChannels(caller: CallerContext, ids: number[]): Promise<InviteChannelCheck[]> {
  const settings = await caller.settings();
  // Only ids of the realm's directory are asked about: a list of 10,000 made-up ids must not
  // wake 10,000 channel actors (on a cluster, it overran the store's connection and failed).
  const directory = await caller.actors.ask(caller.realm, { type: 'realm.channels' });
  const known = new Set(directory.map((entry) => entry.channel_id));
  return Promise.all(
    [...new Set(ids)].map(async (id) => {
      if (!known.has(id)) return { channel_id: id, visible: false, may_add_subscribers: false };
      const info = await caller.channelInfo(id).catch((err: unknown) => {
        if (isChatError(err) && err.code === 'BAD_REQUEST') return undefined;
        throw err;
      });
      if (!info) return { channel_id: id, visible: false, may_add_subscribers: false };
      // The ChannelActor's own rule for subscribing others (actors/channel/src/subscribe.ts).
      const who = caller.principal;
      const subscribed = info.subscribers.includes(who.user_id);
      const may = mayAddSubscribers(who, info, subscribed, settings.can_add_subscribers_group);
      return { channel_id: id, visible: mayReadChannel(who, info, subscribed), may_add_subscribers: may };
    }),
  );
}
