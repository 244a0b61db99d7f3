import { ChatError, type ActorAddress, type QueueCommand, type QueueReply } from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';
import type { ApiOptions } from '../options.js';

type Get = Extract<QueueCommand, { type: 'queue.get' }> & { since: number };

/**
 * Asks a queue for events, waiting until it has some or its heartbeat
 * (which comes `heartbeatMs` after the poll began). With `pollSliceMs`, a
 * wait is asked in slices: when a slice passes unanswered, the edge asks
 * again, and the ask reaches whichever host owns the queue by then. The
 * queue answers the new ask and drops the old one, so nothing is answered
 * twice.
 */
export async function pollQueue(actors: ActorClient, options: ApiOptions, to: ActorAddress, get: Get) {
  // The queue answers a waiting poll by its heartbeat; leave room for that answer.
  const deadline = get.since + options.heartbeatMs + 10_000;
  const slice = options.pollSliceMs;
  for (;;) {
    const left = deadline - Date.now();
    const timeoutMs = slice === undefined || get.dont_block ? left : Math.min(left, slice);
    try {
      return await actors.ask<QueueReply>(to, get, { timeoutMs });
    } catch (err) {
      const again = err instanceof ChatError && err.code === 'REQUEST_TIMEOUT' && timeoutMs < left;
      if (!again) throw err;
    }
  }
}
