/**
 * Message ids: milliseconds since 2025 times 4096, plus a sequence step of
 * 64, plus the shard (mod 64). Every shard draws from its own residue class,
 * so ids are unique across the deployment without coordination, stay below
 * 2^53 until about 2094, and follow time to the millisecond across the realm.
 * A shard that sends more than 64 messages in one millisecond borrows the
 * next millisecond.
 */
const EPOCH_MS = Date.UTC(2025, 0, 1);
const SHARD_SLOTS = 64;
const lastByShard = new Map<number, number>();

/** The next id for `shard` at `now`, above `floor` (the conversation's newest id). */
export function nextMessageId(shard: number, now: number, floor: number): number {
  const residue = shard % SHARD_SLOTS;
  const base = (now - EPOCH_MS) * 4096 + residue;
  const least = Math.max(base, (lastByShard.get(shard) ?? 0) + 1, floor + 1);
  const id = least + ((residue - (least % SHARD_SLOTS) + SHARD_SLOTS) % SHARD_SLOTS);
  lastByShard.set(shard, id);
  return id;
}
