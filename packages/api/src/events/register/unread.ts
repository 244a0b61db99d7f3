import type { ViewedMessage } from '@chat/protocol';

/** The register snapshot's `unread_msgs`, kept as sets while it is built and folded. */
export class UnreadIndex {
  private readonly pms = new Map<number, Set<number>>();
  private readonly huddles = new Map<string, Set<number>>();
  private readonly streams = new Map<string, { stream_id: number; topic: string; ids: Set<number> }>();
  private readonly mentions = new Set<number>();
  private readonly muted = new Set<number>();

  constructor(
    private readonly me: number,
    mutedChannels: number[],
  ) {
    for (const id of mutedChannels) this.muted.add(id);
  }

  /** Adds an unread message; adding one twice changes nothing. */
  add(m: Pick<ViewedMessage, 'id' | 'sender_id' | 'channel_id' | 'topic' | 'dm_user_ids' | 'flags'>): void {
    const put = <K>(map: Map<K, Set<number>>, key: K) => {
      const set = map.get(key) ?? new Set<number>();
      set.add(m.id);
      map.set(key, set);
    };
    if (m.channel_id !== null) {
      const key = `${m.channel_id}\0${m.topic.toLowerCase()}`;
      const entry = this.streams.get(key) ?? { stream_id: m.channel_id, topic: m.topic, ids: new Set<number>() };
      entry.ids.add(m.id);
      this.streams.set(key, entry);
    } else if (m.dm_user_ids.length <= 2) {
      put(this.pms, m.dm_user_ids.find((id) => id !== this.me) ?? this.me);
    } else {
      put(this.huddles, m.dm_user_ids.join(','));
    }
    if (m.flags.some((f) => f === 'mentioned' || f.endsWith('wildcard_mentioned'))) this.mentions.add(m.id);
  }

  toJSON(emptyTopicName: string | null) {
    const sorted = (ids: Set<number>) => [...ids].sort((a, b) => a - b);
    const streams = [...this.streams.values()];
    const count =
      [...this.pms.values(), ...this.huddles.values()].reduce((n, s) => n + s.size, 0) +
      streams.filter((s) => !this.muted.has(s.stream_id)).reduce((n, s) => n + s.ids.size, 0);
    return {
      count,
      pms: [...this.pms].map(([other, ids]) => ({
        other_user_id: other,
        sender_id: other,
        unread_message_ids: sorted(ids),
      })),
      streams: streams.map((s) => ({
        stream_id: s.stream_id,
        topic: s.topic === '' && emptyTopicName !== null ? emptyTopicName : s.topic,
        unread_message_ids: sorted(s.ids),
      })),
      huddles: [...this.huddles].map(([users, ids]) => ({ user_ids_string: users, unread_message_ids: sorted(ids) })),
      mentions: sorted(this.mentions),
      old_unreads_missing: false,
    };
  }
}
