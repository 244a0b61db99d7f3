import { ChatError } from '@chat/protocol';

// Register makes queue ids with randomUUID(); this also admits the original's `1375801870:2942`.
const QUEUE_ID = /^[A-Za-z0-9:_-]{1,64}$/;

/**
 * A queue id becomes part of an actor key, and through it of store keys, which
 * must not hold NUL. An id no queue could have is answered here as the queue
 * actor would answer an unknown one, without creating an actor for it.
 */
export function checkedQueueId(queueId: string): string {
  if (!QUEUE_ID.test(queueId)) {
    throw new ChatError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, { queue_id: queueId });
  }
  return queueId;
}
