/**
 * Ownership of a shard is a lease with an epoch. Every write an owner makes
 * carries its fence; an adapter refuses a write whose epoch is older than the
 * newest epoch it has seen for that shard, so a paused old owner cannot write
 * after a new owner took over.
 */
export interface Fence {
  shard: number;
  epoch: number;
}

export class FencedError extends Error {
  override readonly name = 'FencedError';
  constructor(
    readonly fence: Fence,
    readonly currentEpoch: number,
  ) {
    super(`shard ${fence.shard}: epoch ${fence.epoch} is fenced by epoch ${currentEpoch}`);
  }
}
