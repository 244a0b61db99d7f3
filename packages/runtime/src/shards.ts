import type { ActorAddress } from '@chat/protocol';

/**
 * An actor's shard is a stable hash of its address. The shard count is fixed
 * for a deployment (changing it moves every actor), so it is configuration
 * that every edge and host must agree on.
 */
export function shardOf(address: ActorAddress, shardCount: number): number {
  return fnv1a(`${address.type}/${address.key}`) % shardCount;
}

/** FNV-1a, 32 bit: cheap, stable across processes and languages. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The transport subject on which the owner of a shard takes asks and tells. */
export const shardSubject = (type: string, shard: number) => `actor.${type}.${shard}`;

/** Where a host takes fan-outs for all the shards it owns: one message per host, not per shard. */
export const hostSubject = (hostId: string) => `host.${hostId}.fanout`;
